// `npm start`'s prestart: builds only when dist/ is missing or older than what it is built from (src/, the
// build's tsconfig, package-lock.json), so that starting a built tree starts at once and a fresh clone or an
// edited source still runs what it holds. `npm run build` always builds (the per-file compile, the console assets, the bundle).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The newest modification time under `path` (a file or a folder). */
function newest(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let t = 0;
  for (const name of readdirSync(path)) t = Math.max(t, newest(join(path, name)));
  return t;
}

const built = join(root, 'dist/cli.js');
const sources = ['src', 'tsconfig.build.json', 'tsconfig.json', 'package-lock.json', 'scripts/compile.mjs', 'scripts/build-console-assets.mjs', 'scripts/bundle.mjs'].map((p) => join(root, p)).filter(existsSync);
const stale = !existsSync(built) || Math.max(...sources.map(newest)) > statSync(built).mtimeMs;
if (stale) {
  process.stderr.write('mailroom: building dist/ (missing or older than src/)\n');
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
