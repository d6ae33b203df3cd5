// Part of `npm run build`: each source file of src/ transpiled to dist/ as the ES module Node runs, with its
// source map. esbuild's per-file transform, not tsc's emit: the sources are written for isolated modules
// (tsconfig.json), so a file alone decides its output, and the type check is its own step (`npm run
// typecheck`, CI) instead of being paid again by every build.
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) sources(path, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const outdir = process.argv[2] ?? join(root, 'dist');
await build({
  absWorkingDir: root,
  entryPoints: sources(join(root, 'src')),
  outdir,
  outbase: join(root, 'src'),
  format: 'esm',
  platform: 'node',
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  sourcemap: 'linked',
  logLevel: 'warning',
});
