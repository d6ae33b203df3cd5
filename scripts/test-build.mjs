// The test files and the sources they import, transpiled once per run of scripts/test.mjs instead of once
// per test process. Under `node --import tsx` every process (one per test file, twice per integration file)
// and every parser thread it starts paid tsx's loader hooks for each of the ~800 modules it loads: about
// 2 s of CPU a process, more than most test files take to run (bench/README.md, "CI time").
//
// The copy is a mirror of the checkout in a temporary folder: each .ts file of src/, test/, scripts/ and
// bench/ is there as the .js that tsx would run (the same esbuild transform, taken from tsx's own
// dependency), beside a link to the .ts itself; every other file and folder is a link to the original. So a
// test finds its fixtures, the README and the scripts by the same relative paths, a child process started as
// `node --import tsx src/cli.ts` still runs the sources, and src/infra/threads sees .js modules and starts
// its threads without tsx.
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

// Folders whose .ts files a test may import.
const TRANSPILED = ['src', 'test', 'scripts', 'bench'];

/** Files to transpile under `dir` (of the checkout), mirrored into `out` with links for the rest. */
function mirror(root, out, dir, sources) {
  mkdirSync(join(out, dir), { recursive: true });
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) mirror(root, out, path, sources);
    else {
      symlinkSync(join(root, path), join(out, path));
      if (/\.ts$/.test(e.name) && !/\.d\.ts$/.test(e.name)) sources.push(join(root, path));
    }
  }
}

/** Builds the mirror; returns its folder and a function that removes it. */
export async function buildTests(root) {
  const out = mkdtempSync(join(tmpdir(), 'mailroom-test-build-'));
  /** The transpiled copy of a .ts file of the checkout. */
  const file = (f) => join(out, relative(root, f)).replace(/\.ts$/, '.js');
  try {
    for (const e of readdirSync(root, { withFileTypes: true })) {
      if (TRANSPILED.includes(e.name) || e.name === '.git') continue;
      symlinkSync(join(root, e.name), join(out, e.name));
    }
    const sources = [];
    for (const dir of TRANSPILED) mirror(root, out, dir, sources);
    const esbuild = createRequire(createRequire(join(root, 'package.json')).resolve('tsx/package.json'))('esbuild');
    // As tsx transforms: per file (no bundling), ESM for Node, tsconfig.json read by esbuild for each file;
    // source maps inline so that a failure's stack names the .ts line (node runs with --enable-source-maps).
    const r = await esbuild.build({
      entryPoints: sources,
      outdir: out,
      outbase: root,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node.split('.')[0]}`,
      sourcemap: 'inline',
      sourcesContent: false,
      logLevel: 'silent',
    });
    if (r.errors.length) throw new Error(r.errors.map((e) => e.text).join('\n'));
    // Each .js keeps its source's times, so that a test asking whether dist/ is older than src/ (first-send)
    // still compares against the sources.
    for (const f of sources) {
      const st = statSync(f);
      utimesSync(file(f), st.atime, st.mtime);
    }
  } catch (err) {
    rmSync(out, { recursive: true, force: true });
    throw err;
  }
  return { dir: out, file, remove: () => rmSync(out, { recursive: true, force: true }) };
}
