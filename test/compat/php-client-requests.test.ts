// Compatibility with the hosted service's official PHP client (postmark-php), which no package manager on the
// project's machines carries: the requests its own phpunit suite makes, in its exact casing (camelCase keys for
// servers, senders, domains and templates; "" for an unset model field), are fixtures in
// php-client/requests.json, written from reading the client. Each is sent to a running mailroom in order, and
// what the PHP test reads from the answer is asserted as the hosted service answers it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';

interface Fixture {
  test: string;
  token: 'server' | 'account' | 'saved' | 'test';
  method: string;
  path: string;
  body?: unknown;
  expect: Record<string, unknown>;
  save?: string;
}

const { requests } = JSON.parse(readFileSync(new URL('./php-client/requests.json', import.meta.url), 'utf8')) as { requests: Fixture[] };

/** `a.0.b` in an answer. */
function at(value: unknown, path: string): unknown {
  let v = value;
  for (const part of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

describe("the PHP client's requests (fixtures from its phpunit suite)", () => {
  let s: TestService;
  const saved = new Map<string, Record<string, unknown>>();
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, 'sender@example.com');
  });
  after(() => s.close());

  /** `{name.Field}` -> the saved answer's field; a whole-string placeholder keeps the field's type. */
  function fill(value: unknown): unknown {
    if (typeof value === 'string') {
      const whole = /^\{(\w+)\.(\w+)\}$/.exec(value);
      if (whole) return saved.get(whole[1])?.[whole[2]];
      return value.replace(/\{(\w+)\.(\w+)\}/g, (_m, n: string, f: string) => String(saved.get(n)?.[f]));
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    return value;
  }

  it('answers each request as the hosted service does', async () => {
    for (const f of requests) {
      const token = f.token === 'saved' ? (saved.get('phpserver')!.ApiTokens as string[])[0] : f.token === 'test' ? 'POSTMARK_API_TEST' : undefined;
      const r = await s.request(f.method, fill(f.path) as string, {
        body: f.body === undefined ? undefined : fill(f.body),
        ...(f.token === 'account' ? { accountToken: s.accountToken } : { token }),
        headers: { 'user-agent': 'Postmark-PHP (PHP Version:8.2, OS:Linux)' },
      });
      const where = `${f.test}: ${f.method} ${f.path} -> ${r.status} ${r.text.slice(0, 300)}`;
      for (const [key, want] of Object.entries(fill(f.expect) as Record<string, unknown>)) {
        if (key === 'status') {
          assert.equal(r.status, want, where);
          continue;
        }
        const got = at(r.body, key);
        if (want === '<set>') assert.ok(got !== undefined && got !== null && got !== '', `${key} is set; ${where}`);
        else if (want === '<empty>') assert.ok(got === null || got === '', `${key} is empty; ${where}`);
        else if (want === '<null>') assert.equal(got, null, `${key} is null; ${where}`);
        else assert.deepEqual(got, want, `${key}; ${where}`);
      }
      if (f.save) saved.set(f.save, r.body);
    }
  });
});
