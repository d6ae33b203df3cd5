// tier: unit
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { nearestName, TOOLING_PREFIXES } from '../src/config-unknown.js';

const ROOT = new URL('..', import.meta.url).pathname;

/** `process.env.MAILROOM_*` names read in the .ts/.js/.mjs files under `dir`, with the file reading each. */
function envReads(dir: string): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(ts|js|mjs)$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    for (const m of readFileSync(file, 'utf8').matchAll(/process\.env\.(MAILROOM_\w+)/g)) found.push([file.slice(ROOT.length), m[1]]);
  }
  return found;
}

describe('unknown MAILROOM_* variables', () => {
  it('a misspelling stops the start, naming the nearest known variable', () => {
    const cases: Record<string, string> = {
      MAILROOM_SMTP_RELAI: 'MAILROOM_SMTP_RELAY',
      MAILROOM_DATABSE_URL: 'MAILROOM_DATABASE_URL',
      MAILROOM_PROT: 'MAILROOM_PORT',
      MAILROOM_SECRETKEY: 'MAILROOM_SECRET_KEY',
    };
    for (const [typo, meant] of Object.entries(cases)) {
      assert.throws(
        () => loadConfig({ [typo]: 'x' }),
        (e: unknown) => e instanceof ConfigError && e.variable === typo && e.message.includes(`did you mean ${meant}?`),
        typo,
      );
    }
  });

  it('every variable config.ts reads is known, also those read only under a condition or elsewhere', () => {
    const c = loadConfig({
      MAILROOM_DATABASE_POOL_SIZE: '25',
      MAILROOM_HTTP_REQUEST_TIMEOUT_SECONDS: '30',
      MAILROOM_HTTP_HEADERS_TIMEOUT_SECONDS: '45',
      MAILROOM_HTTP_IDLE_TIMEOUT_SECONDS: '7',
      MAILROOM_SHUTDOWN_TIMEOUT_SECONDS: '9',
      MAILROOM_METRICS_TOKEN: 'metrics-token-0123456789',
      MAILROOM_EHLO_NAME: 'mx.example.com',
      MAILROOM_DELIVERY_LEASE_SECONDS: '30',
      MAILROOM_TEST_DB: 'sqlite',
    });
    assert.equal(c.databasePoolSize, 25);
    // The headers limit never exceeds the request limit (Node refuses that).
    assert.deepEqual(c.http, { requestTimeoutMs: 30_000, headersTimeoutMs: 30_000, idleTimeoutMs: 7_000 });
    assert.equal(c.shutdownTimeoutMs, 9_000);
    assert.equal(c.metricsToken, 'metrics-token-0123456789');
  });

  it('has safe defaults for the new settings', () => {
    const c = loadConfig({});
    assert.equal(c.databasePoolSize, 10);
    assert.deepEqual(c.http, { requestTimeoutMs: 60_000, headersTimeoutMs: 10_000, idleTimeoutMs: 5_000 });
    assert.equal(c.shutdownTimeoutMs, 20_000);
    assert.equal(c.metricsToken, null);
  });

  it('the service reads MAILROOM_* only through the settings table, and the tooling only names of its own', () => {
    assert.deepEqual(envReads('src'), [], 'a MAILROOM_* variable read outside the settings table');
    const tooling = [...envReads('test'), ...envReads('bench'), ...envReads('scripts')];
    assert.ok(tooling.length > 0);
    assert.deepEqual(tooling.filter(([, name]) => !TOOLING_PREFIXES.some((p) => name.startsWith(p))), [], 'a knob of the tests that a spawned serve would refuse');
    // Such a knob in the environment does not stop the service.
    assert.equal(loadConfig({ MAILROOM_TEST_DB: 'sqlite', MAILROOM_CONSOLE_SCREENSHOTS: '/tmp', MAILROOM_ROBUST_SEED: '1' }).port, 8080);
  });

  it('nearestName picks the smallest edit distance', () => {
    assert.equal(nearestName('MAILROOM_HOTS', ['MAILROOM_HOST', 'MAILROOM_PORT']), 'MAILROOM_HOST');
  });
});
