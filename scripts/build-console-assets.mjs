// Part of `npm run build`: the console's static files and uPlot's distribution files are copied next to the
// compiled console module, so the package carries everything it serves (no CDN, works offline).
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'src/http/console/assets');
const to = join(root, 'dist/http/console/assets');
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from)) copyFileSync(join(from, name), join(to, name));
const require = createRequire(import.meta.url);
for (const name of ['uPlot.iife.min.js', 'uPlot.min.css']) copyFileSync(require.resolve(`uplot/dist/${name}`), join(to, name));
