// tier: unit
// What `mailroom serve` loads before it answers /readyz is most of its start (bench/README.md, "startup"):
// the packages used only by some requests or some mail are imported on first use, not by the module graph
// that src/cli.ts pulls in statically. Walks that graph (static `import`/`export ... from`, not `import type`
// and not `await import()`) and lists the packages it reaches.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Packages reached from `entry` by static imports, with one importing file each. */
function staticPackages(entry: string): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [entry];
  const statement = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(statement)) {
      if (spec!.startsWith('.')) {
        const ts = resolve(dirname(file), spec!).replace(/\.js$/, '.ts');
        if (existsSync(ts)) queue.push(ts);
      } else if (!spec!.startsWith('node:')) {
        const name = spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!;
        if (!packages.has(name)) packages.set(name, file.slice(SRC.length));
      }
    }
  }
  return packages;
}

describe('what serve loads at start', () => {
  const packages = staticPackages(join(SRC, 'cli.ts'));

  it('reaches the packages every start needs', () => {
    for (const p of ['fastify', 'kysely', 'better-sqlite3', 'smtp-server']) assert.ok(packages.has(p), `${p} not reached: the walk is broken`);
  });

  it('leaves mailauth, juice and pg to their first use', () => {
    // mailauth (with its validation library, most of a hundred files) reads mail and checks DKIM; juice
    // inlines templates' CSS; pg is only for a postgres:// URL.
    const eager = ['mailauth', 'juice', 'pg', 'caniemail'].filter((p) => packages.has(p)).map((p) => `${p} (from src/${packages.get(p)})`);
    assert.deepEqual(eager, []);
  });
});
