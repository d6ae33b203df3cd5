// tier: unit
// postal-mime is reached through src/infra/mime/postal-mime.ts only, which makes the global Blob the joined one
// (joined-blob.ts) first: a file importing postal-mime's value directly would parse a stranger's megabyte of
// short lines several times slower. Type-only imports are free.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const WRAPPER = join(SRC, 'infra/mime/postal-mime.ts');

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) files(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('postal-mime is imported through its wrapper', () => {
  it('no other src file imports its value, statically or with import()', () => {
    const value = /^\s*import\s+(?!type\b)[^;]*?from\s+['"]postal-mime['"]|import\(\s*['"]postal-mime['"]\s*\)/m;
    const offenders = files(SRC).filter((f) => f !== WRAPPER && value.test(readFileSync(f, 'utf8')));
    assert.deepEqual(offenders.map((f) => f.slice(SRC.length)), []);
  });
});
