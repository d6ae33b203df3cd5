// Part of `npm run build`, after scripts/compile.mjs: dist/cli.js becomes one bundle of the CLI and the packages it imports,
// because a process that loads some 1,500 small module files spends most of its start reading and compiling
// them one by one (figures in bench/README.md, "Startup"). The rest of dist/ (compile.mjs's output) stays: the worker
// threads load their task modules from it, and the console serves its asset files from it.
//
// Inside the bundle every module shares the bundle's `import.meta.url`, so each `import.meta.url` of our
// sources is replaced by the URL of that module's own compiled file in dist/: paths resolved beside a
// module (task modules, assets, createRequire) resolve where they do in the unbundled build. Chunks of
// dynamic imports are written to dist/ itself so that those relative URLs hold in them too.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

/** Rewrites `import.meta.url` in our TypeScript sources to the URL of the module's compiled file in dist/. */
const moduleUrls = {
  name: 'module-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const rel = relative(src, args.path);
      if (rel.startsWith('..')) return undefined;
      const text = await readFile(args.path, 'utf8');
      const compiled = './' + rel.split('\\').join('/').replace(/\.ts$/, '.js');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(compiled)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

// Chunks are named by their content's hash: a previous build's would stay beside the new ones.
for (const name of readdirSync(join(root, 'dist'))) if (name.startsWith('chunk-')) rmSync(join(root, 'dist', name));

const result = await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  chunkNames: 'chunk-[hash]',
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  // Native addons load a .node file beside their package; pg is loaded on demand through createRequire
  // (PostgreSQL only) and its optional pg-native is native.
  external: ['better-sqlite3', 'pg', 'pg-native'],
  // Bundled CommonJS packages call require() for Node's built-ins; an ES module has none of its own.
  banner: { js: "import { createRequire as __mailroomRequire } from 'node:module'; const require = __mailroomRequire(import.meta.url);" },
  // The licence comments found in the bundled code go to dist/cli.js.LEGAL.txt, linked from the bundle; the
  // full licence texts follow below.
  legalComments: 'linked',
  metafile: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [moduleUrls],
});

/** The folder of the package a bundled file belongs to (node_modules/<name> or node_modules/@scope/<name>). */
function packageDir(file) {
  const parts = file.split('/');
  const i = parts.lastIndexOf('node_modules');
  if (i < 0) return null;
  return parts.slice(0, i + (parts[i + 1]?.startsWith('@') ? 3 : 2)).join('/');
}

// Each bundled package's name, version, declared licence and licence file, as the packages' own licences ask
// their copies to carry: dist/cli.js.LICENSES.txt.
const dirs = [...new Set(Object.keys(result.metafile.inputs).map(packageDir).filter(Boolean))].sort();
const notices = dirs.map((dir) => {
  const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  const file = readdirSync(join(root, dir)).find((n) => /^(licen[cs]e|copying)/i.test(n));
  const text = file ? readFileSync(join(root, dir, file), 'utf8').trim() : `(no licence file; package.json declares ${JSON.stringify(pkg.license ?? null)})`;
  return `${pkg.name}@${pkg.version} (${typeof pkg.license === 'string' ? pkg.license : 'see below'})\n\n${text}\n`;
});
writeFileSync(join(root, 'dist/cli.js.LICENSES.txt'), `Packages bundled into dist/cli.js and their licences.\n\n${notices.join(`\n${'-'.repeat(72)}\n\n`)}`);
