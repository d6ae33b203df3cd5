// tier: unit
// The source keeps the layers of docs/architecture.md (scripts/import-cycles.mjs): no import circles
// between files or between the areas of src/domain, and no import running up (below the composition root,
// nothing imports it; infra imports neither the domain nor the edges). A circle makes a module's load order
// depend on who imports first; an upward import ties the lower layer to everything above.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';

const script = new URL('../../scripts/import-cycles.mjs', import.meta.url).pathname;
const run = (...args: string[]) =>
  promisify(execFile)(process.execPath, [script, ...args]).then(
    (r) => ({ ...r, code: 0 }),
    (e: { stdout: string; code: number }) => e,
  );

describe('import structure', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  /** A small src/ tree: path -> source. */
  const tree = (files: Record<string, string>): string => {
    const d = mkdtempSync(join(tmpdir(), 'import-cycles-'));
    dirs.push(d);
    for (const [p, text] of Object.entries(files)) {
      mkdirSync(dirname(join(d, p)), { recursive: true });
      writeFileSync(join(d, p), text);
    }
    return d;
  };

  it('src/ has no import circles and no upward imports', async () => {
    const r = await run();
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /0 file circles, 0 folder circles, 0 upward imports/, r.stdout);
  });

  it('fails on a type-only import of the composition root from below it', async () => {
    const r = await run(
      tree({
        'context.ts': "import { f } from './domain/a/f.js';\nexport interface AppContext { n: number }\nf();\n",
        'domain/a/f.ts': "import type { AppContext } from '../../context.js';\nexport const f = (c?: AppContext) => c;\n",
      }),
    );
    assert.equal(r.code, 1);
    assert.match(r.stdout, /upward import: domain\/a\/f\.ts -> context\.ts/);
    assert.match(r.stdout, /1 file circles/);
  });

  it('fails on infra importing the domain or an edge, and on the domain importing an edge', async () => {
    const r = await run(
      tree({
        'infra/keys.ts': "import type { T } from '../domain/t.js';\nimport { h } from '../http/h.js';\nexport type K = T;\nh();\n",
        'domain/t.ts': "import type { S } from '../smtp-listeners/s.js';\nexport type T = S;\n",
        'http/h.ts': 'export const h = () => 1;\n',
        'smtp-listeners/s.ts': "import type { K } from '../infra/keys.js';\nexport type S = K;\n",
      }),
    );
    assert.equal(r.code, 1);
    for (const arrow of ['infra/keys.ts -> domain/t.ts', 'infra/keys.ts -> http/h.ts', 'domain/t.ts -> smtp-listeners/s.ts']) {
      assert.ok(r.stdout.includes(`upward import: ${arrow}`), r.stdout);
    }
    assert.match(r.stdout, /3 upward imports/);
  });

  it('lets each layer import the ones below it', async () => {
    const r = await run(
      tree({
        'serve.ts': "import { h } from './http/h.js';\nimport type { C } from './domain/c.js';\nexport type X = C;\nh();\n",
        'http/h.ts': "import type { C } from '../domain/c.js';\nexport const h = (c?: C) => c;\n",
        'domain/c.ts': "import type { Config } from '../infra/config-types.js';\nexport interface C { config: Config }\n",
        'infra/config-types.ts': 'export interface Config { port: number }\n',
      }),
    );
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /0 file circles, 0 folder circles, 0 upward imports/);
  });
});
