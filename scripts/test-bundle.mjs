// Each test process's entry (a group's file or a test file of its own, scripts/test-groups.mjs) bundled with
// the sources and the production packages it imports. A test process otherwise loads some 1,000 module files
// one by one: resolving, reading and compiling each cost about 0.9 s of CPU per process, paid by every process
// of a run (bench/README.md, "CI time"). All of a run's entries are bundled in one build, split into chunks
// that they share, so that each module is parsed and written once: a bundle of its own per entry cost as much
// to build as it saved in loading. Chunks may import one another in a cycle, which is safe only while no
// module in them awaits at its top level: test/structure/top-level-await.test.ts holds src/ to that (a test
// file may, being an entry that no chunk imports).
//
// Inside a bundle every module shares its chunk's `import.meta.url`, so each module's `import.meta.url` is
// replaced by the URL of its own transpiled file in the mirror (as scripts/bundle.mjs does for dist/):
// fixtures, task modules of the worker threads and createRequire resolve where they do unbundled. The
// development packages (test tools, the browser driver, the loaders) and the native or optional ones stay
// outside, loaded from node_modules as before. A test that imports a module by a URL made at run time gets
// the mirror's unbundled copy, a second instance beside the bundle's.
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Packages left to Node's loader: every development dependency, and the production ones that load a
 * native addon or are loaded on demand (as in scripts/bundle.mjs). */
function externals(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return [...Object.keys(pkg.devDependencies ?? {}), 'better-sqlite3', 'pg', 'pg-native'];
}

/**
 * A function that bundles entries (.js files of the mirror `dir` of the checkout `root`) and resolves with a
 * map from each entry to its bundle. An entry of the same content as one bundled before (a group of the same
 * files in the next database's run, a file of its own again in the perf tier) gets the bundle made then.
 */
export function bundler(root, dir) {
  const made = new Map();
  let n = 0;
  return async (entries) => {
    const key = (e) => (e.includes('/.test-groups/') ? readFileSync(e, 'utf8') : e);
    const fresh = [...new Set(entries.filter((e) => !made.has(key(e))))];
    if (fresh.length) {
      const t0 = Date.now();
      const out = await bundleEntries(root, dir, join(dir, '.test-bundles', String(++n)), fresh);
      console.log(`bundled ${fresh.length} test entries in ${((Date.now() - t0) / 1000).toFixed(1)} s (scripts/test-bundle.mjs)`);
      for (const e of fresh) made.set(key(e), out.get(e));
    }
    return new Map(entries.map((e) => [e, made.get(key(e))]));
  };
}

/** Bundles each entry (a .js file of the mirror `dir`) into `outDir`; resolves with a map from each entry to
 * its bundle. `root` is the checkout (for its package.json and esbuild). */
async function bundleEntries(root, dir, outDir, entries) {
  const esbuild = createRequire(createRequire(join(root, 'package.json')).resolve('tsx/package.json'))('esbuild');
  const mirrored = `${dir}/`;
  const moduleUrls = {
    name: 'module-urls',
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, async (args) => {
        if (!args.path.startsWith(mirrored) || args.path.includes('/node_modules/')) return undefined;
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return { contents: text, loader: 'js' };
        const url = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: text.replaceAll('import.meta.url', url), loader: 'js' };
      });
    },
  };
  const points = Object.fromEntries(entries.map((e, i) => [`entry-${i + 1}`, e]));
  const r = await esbuild.build({
    absWorkingDir: dir,
    entryPoints: points,
    outdir: outDir,
    entryNames: '[name].test',
    bundle: true,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    external: externals(root),
    // Bundled CommonJS packages call require() for Node's built-ins; an ES module has none of its own.
    banner: { js: "import { createRequire as __testRequire } from 'node:module'; const require = __testRequire(import.meta.url);" },
    // The mirror's files carry inline maps to the .ts sources; the bundle's map goes back through them, so a
    // failure's stack still names the .ts line.
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'silent',
    plugins: [moduleUrls],
  });
  if (r.errors.length) throw new Error(r.errors.map((e) => e.text).join('\n'));
  return new Map(entries.map((e, i) => [e, join(outDir, `entry-${i + 1}.test.js`)]));
}
