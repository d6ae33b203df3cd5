// tier: unit
// The source has no import circles (scripts/import-cycles.mjs): between files, and between the areas of
// src/domain. A circle makes a module's load order depend on who imports first.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

describe('import structure', () => {
  it('has no import circles between files or between areas', async () => {
    const script = new URL('../../scripts/import-cycles.mjs', import.meta.url).pathname;
    const r = await promisify(execFile)(process.execPath, [script]).catch((e: { stdout: string; code: number }) => e);
    assert.match(r.stdout, /0 file circles, 0 folder circles/, r.stdout);
  });
});
