// The console's static files, read once at start and served from memory with long-lived caching (their
// names do not change between builds, so they are revalidated by ETag). `npm run build` copies them, and
// uPlot's distribution files, next to the compiled module (scripts/build-console-assets.mjs), so uPlot is a
// devDependency, absent from a production install; when run from source (tsx, a development checkout) it is
// read from node_modules. Nothing is fetched at run time.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { App } from '../types.js';

const FILES: Record<string, string> = {
  'console.css': 'text/css; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'dmarc.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
  'stats.js': 'text/javascript; charset=utf-8',
  'uPlot.iife.min.js': 'text/javascript; charset=utf-8',
  'uPlot.min.css': 'text/css; charset=utf-8',
};

function locate(name: string): string {
  const here = fileURLToPath(new URL(`./assets/${name}`, import.meta.url));
  if (existsSync(here)) return here;
  return createRequire(import.meta.url).resolve(`uplot/dist/${name}`);
}

export function registerAssets(app: App): void {
  const loaded = new Map<string, { body: Buffer; type: string; etag: string }>();
  for (const [name, type] of Object.entries(FILES)) {
    const body = readFileSync(locate(name));
    loaded.set(name.toLowerCase(), { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` });
  }
  app.get<{ Params: { name: string } }>('/console/assets/:name', { schema: { hide: true } }, async (req, reply) => {
    const f = loaded.get(req.params.name.toLowerCase());
    if (!f) return reply.status(404).type('text/plain').send('Not found');
    reply.header('etag', f.etag).header('cache-control', 'public, max-age=300');
    if (req.headers['if-none-match'] === f.etag) return reply.status(304).send();
    return reply.type(f.type).send(f.body);
  });
}
