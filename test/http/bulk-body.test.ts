// Large JSON bodies (the batch and bulk routes take up to 50 MB) are parsed on a parser thread and rebuilt on
// the event loop in pieces (infra/json-thread-pieces.ts): the value is the one JSON.parse gives, broken or
// hostile JSON gets the answer a small body gets, a large valid bulk request is accepted whole, and /healthz
// keeps answering while four large bodies are read at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { THREAD_BYTES } from '../../src/http/body-parser.js';
import { parseOnThread, PIECE_CHARS } from '../../src/infra/json-thread-pieces.js';
import { quantile, startHealthProbe } from '../helpers/health-probe.js';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';
import { assertWithin, LEFT_TO_PERF, TIMED } from '../helpers/timing.js';

const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ To: `reader${i}@d${i % 100}.example`, TemplateModel: { name: `Reader ${i}`, topic: 'gardens' } }));

describe('large JSON bodies', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, 'news@example.com');
  });
  after(() => s.close());

  it('rebuilds exactly the value JSON.parse gives: key order, repeated keys, __proto__, long and multi-byte strings', async () => {
    const long = 'é€😀x'.repeat(PIECE_CHARS / 2);
    const bodies = [
      JSON.stringify({ a: 1, Messages: entries(30_000), z: [long, { deep: [[[long]]] }], n: [0.1, -2e300, null, true, false] }),
      `{"b":1,"a":${JSON.stringify(entries(20_000))},"b":2,"__proto__":{"polluted":${JSON.stringify(long)}},"c":"\\u0041\\n"}`,
      `  [${JSON.stringify(long)}, ${JSON.stringify(entries(15_000))}, {}, [], ""]  `,
      JSON.stringify({ big: Object.fromEntries(entries(20_000).map((e, i) => [`k${i}`, e])) }),
    ];
    for (const text of bodies) {
      assert.ok(Buffer.byteLength(text) >= THREAD_BYTES);
      const r = await parseOnThread(s.ctx.threads, Buffer.from(text));
      assert.ok('value' in r);
      const expected = JSON.parse(text) as unknown;
      assert.deepEqual(r.value, expected);
      assert.deepEqual(JSON.stringify(r.value), JSON.stringify(expected), 'the same key order');
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    }
  });

  it('answers broken, hostile and too deeply nested large bodies as it answers small ones', async () => {
    const pad = ' '.repeat(THREAD_BYTES);
    const cases = [
      ['{"Messages": [', '{"Messages": ['],
      [`{"From": "a\\u0000b"}`, `{"From": "a\\u0000b"}`],
      [`{"From": "\\ud800"}`, `{"From": "\\ud800"}`],
      [`${'['.repeat(70)}${']'.repeat(70)}`, `${'['.repeat(70)}${']'.repeat(70)}`],
    ];
    for (const [small, large] of cases) {
      const a = await s.request('POST', '/email/bulk', { raw: small });
      const b = await s.request('POST', '/email/bulk', { raw: `${pad}${large}` });
      assert.equal(a.status, 422, a.text);
      assert.deepEqual([b.status, b.body], [a.status, a.body], large.slice(0, 40));
    }
    // White space only is no body, as a small one.
    const empty = await s.request('POST', '/email/bulk', { raw: pad });
    const none = await s.request('POST', '/email/bulk', { raw: '' });
    assert.deepEqual([empty.status, empty.body], [none.status, none.body]);
  });

  it('accepts a large bulk request whole, its keys in any case', async () => {
    // Few entries with large models: the body is past the thread threshold many times over, while the bulk
    // job it starts (run by this service's worker, on its event loop) stays small enough not to load the
    // machine under the /healthz tests below.
    const n = 6_000;
    const note = 'a garden note '.repeat(60);
    const raw = JSON.stringify({ from: 'news@example.com', messagestream: 'broadcast', Subject: 'Hi {{name}}', TextBody: 'Hello {{name}}', Messages: entries(n).map((e) => ({ ...e, TemplateModel: { ...e.TemplateModel, note } })) });
    assert.ok(raw.length > 4 * 1024 * 1024);
    const res = await s.request('POST', '/email/bulk', { raw });
    assert.equal(res.status, 200, res.text);
    const status = await s.request('GET', `/email/bulk/${res.body.Id}`);
    assert.equal(status.body.TotalMessages, n);
  });

  /** Four 12 MB bulk bodies at once (a request the validation then refuses at its first field), /healthz probed every 20 ms. */
  async function fourAtOnce() {
    // Encoded before the probe starts: the test's client shares the service's event loop, and turning four
    // 12 MB strings into bytes there (300 ms) would count against the service.
    const raw = Buffer.from(JSON.stringify({ Subject: 'x', TextBody: 'y', Messages: entries(130_000) }));
    const probe = startHealthProbe(s.url, 20);
    const started = performance.now();
    const answers = await Promise.all([0, 1, 2, 3].map(() => s.request('POST', '/email/bulk', { raw })));
    const ms = performance.now() - started;
    const samples = await probe.stop();
    for (const a of answers) {
      assert.equal(a.status, 422, a.text.slice(0, 200));
      assert.match(a.body.Message, /From/);
    }
    return { ...samples, ms, mb: raw.length / 1e6 };
  }

  it('answers /healthz while four 12 MB bodies are read at once', async () => {
    const { latencies, failures, ms, mb } = await fourAtOnce();
    assert.equal(failures, 0);
    // On the event loop each body's JSON.parse took seconds here, and no probe was answered meanwhile.
    assert.ok(latencies.length >= 10, `${latencies.length} probes answered in ${ms.toFixed(0)} ms for 4 x ${mb.toFixed(0)} MB`);
  });

  it('keeps /healthz p99 under 200 ms and its max under 1 s while four 12 MB bodies are read' + TIMED, LEFT_TO_PERF, async () => {
    // The service's start compiles its route validators in the background; that one-off work is not the bodies'.
    await s.app.validatorsCompiled();
    const { latencies, ms, mb } = await fourAtOnce();
    const p99 = quantile(latencies, 0.99);
    const max = latencies[latencies.length - 1]!;
    // The machine's own noise in the same run, for reading the figures: /healthz alone for 2 s.
    const idle = startHealthProbe(s.url, 20);
    await new Promise((r) => setTimeout(r, 2_000));
    const alone = (await idle.stop()).latencies;
    console.log(`idle ceiling: ${alone.length} probes, p99 ${quantile(alone, 0.99).toFixed(1)} ms, max ${alone[alone.length - 1]!.toFixed(1)} ms`);
    console.log(`4 x ${mb.toFixed(0)} MB in ${ms.toFixed(0)} ms, ${latencies.length} probes: p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
    assertWithin(p99, 200, '/healthz p99');
    assertWithin(max, 1_000, '/healthz max');
  });
});
