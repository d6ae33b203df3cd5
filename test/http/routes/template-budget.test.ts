// A template whose loops multiply (six nested {{#each}} over 30 items: 729 million iterations that print
// nothing) is refused 422 with 1122 within a fraction of a second wherever a render runs, and /healthz keeps
// answering meanwhile (domain/templates/render.ts, RenderBudget); so is CSS inlining past its bound
// (inline-css.ts); a bulk request's expansion gives other requests turns between its renders. Unbounded, one such request held the process
// for 21-25 s. The wall-clock bounds are asserted in the perf tier, where a test runs alone
// (test/helpers/timing.ts); the work itself is 10-75 ms of CPU.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { addUsers, ConsoleClient, VIEWER } from '../console/helpers.js';
import { assertWithin, LEFT_TO_PERF, TIMED } from '../../helpers/timing.js';

const FROM = 'loops@example.com';
const LOOPS = '{{#each a}}'.repeat(6) + '{{/each}}'.repeat(6);
const MODEL = { a: Array.from({ length: 30 }, (_, i) => i) };
const BOUND_MS = 3000;
/** The longest /healthz may wait while other work takes turns (a turn is 10 ms of renders plus one render). */
const STALL_MS = 1500;

describe('render budget over HTTP', LEFT_TO_PERF, () => {
  let s: TestService;
  let templateId: number;

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    await addUsers(s);
    const t = await s.request('POST', '/templates', { body: { Name: 'Loops', Alias: 'loops', Subject: 'Hi', HtmlBody: LOOPS } });
    assert.equal(t.status, 200, t.text);
    templateId = t.body.TemplateId;
  });
  after(() => s.close());

  /** Sends the request and, while it runs, /healthz; answers both with how long each took. */
  async function timedWithHealth(run: () => Promise<{ status: number; body: any; text: string }>) {
    const started = performance.now();
    const answer = run().then((r) => ({ r, ms: performance.now() - started }));
    const health = s.request('GET', '/healthz').then((h) => ({ status: h.status, ms: performance.now() - started }));
    return { ...(await answer), health: await health };
  }

  it('POST /templates/validate answers 422 with 1122 quickly, and /healthz answers meanwhile' + TIMED, LEFT_TO_PERF, async () => {
    const { r, ms, health } = await timedWithHealth(() => s.request('POST', '/templates/validate', { body: { Subject: 'x', HtmlBody: LOOPS, TestRenderModel: MODEL } }));
    assert.equal(r.status, 422, r.text);
    assert.equal(r.body.ErrorCode, 1122);
    assert.match(r.body.Message, /HtmlBody could not be rendered with the test model: The template does too much work/);
    assertWithin(ms, BOUND_MS, 'validate');
    assert.equal(health.status, 200);
    assertWithin(health.ms, BOUND_MS, '/healthz');
  });

  it('POST /email/withTemplate and POST /email (TemplateModel) answer 422 with 1122; nothing is stored' + TIMED, LEFT_TO_PERF, async () => {
    const one = await timedWithHealth(() => s.request('POST', '/email/withTemplate', { body: { From: FROM, To: 'a@example.net', TemplateId: templateId, TemplateModel: MODEL } }));
    assert.equal(one.r.status, 422, one.r.text);
    assert.equal(one.r.body.ErrorCode, 1122);
    assertWithin(one.ms, BOUND_MS, 'withTemplate');
    const plain = await s.request('POST', '/email', { body: { From: FROM, To: 'a@example.net', Subject: 'x', HtmlBody: LOOPS, TemplateModel: MODEL } });
    assert.equal(plain.status, 422, plain.text);
    assert.equal(plain.body.ErrorCode, 1122);
    const n = await s.ctx.db.selectFrom('messages').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(n.n), 0);
  });

  it('a batch of hostile renders refuses each message, and other requests get turns between them' + TIMED, LEFT_TO_PERF, async () => {
    const batch = Array.from({ length: 20 }, () => ({ From: FROM, To: 'a@example.net', TemplateAlias: 'loops', TemplateModel: MODEL }));
    let done = false;
    const answer = s.request('POST', '/email/batchWithTemplates', { body: { Messages: batch } }).finally(() => (done = true));
    let slowest = 0;
    let answered = 0;
    while (!done) {
      const started = performance.now();
      const h = await s.request('GET', '/healthz');
      assert.equal(h.status, 200);
      slowest = Math.max(slowest, performance.now() - started);
      answered += 1;
    }
    const r = await answer;
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.length, 20);
    for (const item of r.body) assert.equal(item.ErrorCode, 1122, JSON.stringify(item));
    assert.ok(answered >= 1);
    assertWithin(slowest, BOUND_MS, '/healthz, slowest during the batch');
  });

  it('POST /email/bulk answers 422 with 1122 quickly, for inline content and a stored template' + TIMED, LEFT_TO_PERF, async () => {
    for (const content of [{ Subject: 'x', HtmlBody: LOOPS }, { TemplateId: templateId }]) {
      const { r, ms, health } = await timedWithHealth(() => s.request('POST', '/email/bulk', { body: { From: FROM, ...content, Messages: [{ To: 'a@example.net', TemplateModel: MODEL }] } }));
      assert.equal(r.status, 422, r.text);
      assert.equal(r.body.ErrorCode, 1122);
      assert.match(r.body.Message, /too much work/);
      assertWithin(ms, BOUND_MS, 'bulk');
      assertWithin(health.ms, BOUND_MS, '/healthz');
    }
  });

  it('expanding a bulk request of heavy renders (each within the budget) gives /healthz turns between them' + TIMED, LEFT_TO_PERF, async () => {
    // Each entry under the 250,000-step budget but heavy (three loops of 25, tens of ms of CPU): 250 entries held the event loop for 4 s in one job. Every
    // entry but the first renders an empty body and is refused after its render (the acceptance checks each
    // entry's Subject, not its bodies), so that the job's time is its renders, not the storing of 250 messages
    // (which is not what is measured here).
    const heavy = '{{#each a}}'.repeat(3) + '{{#p}}{{i}}{{i}}{{/p}}' + '{{/each}}'.repeat(3);
    const items = Array.from({ length: 25 }, (_, i) => ({ i }));
    const Messages = Array.from({ length: 250 }, (_, i) => ({ To: `r${i}@example.net`, TemplateModel: { a: items, p: i === 0 } }));
    const res = await s.request('POST', '/email/bulk', { body: { From: FROM, Subject: 'Heavy', TextBody: heavy, Messages } });
    assert.equal(res.status, 200, res.text);
    let done = false;
    const drained = s.drain().finally(() => (done = true));
    let slowest = 0;
    while (!done) {
      const started = performance.now();
      assert.equal((await s.request('GET', '/healthz')).status, 200);
      slowest = Math.max(slowest, performance.now() - started);
    }
    await drained;
    const row = await s.ctx.db.selectFrom('bulk_requests').select(['status', 'compiled', 'failed']).where('id', '=', res.body.Id).executeTakeFirstOrThrow();
    assert.deepEqual({ ...row, compiled: Number(row.compiled), failed: Number(row.failed) }, { status: 'Completed', compiled: 1, failed: 249 });
    assertWithin(slowest, STALL_MS, '/healthz, slowest during the expansion');
  });

  it('a template whose CSS inlining would take too long is refused 422 with 1122, saying why' + TIMED, LEFT_TO_PERF, async () => {
    // 1,000 rules over 3,000 elements: 0.76 s of juice's CPU for 70 KB of HTML (rules x elements).
    const css = Array.from({ length: 1000 }, (_, i) => `.c${i} p{color:red}`).join('');
    const HtmlBody = `<html><head><style>${css}</style></head><body>${'<p class="x">a</p>'.repeat(3000)}</body></html>`;
    const t = await s.request('POST', '/templates', { body: { Name: 'Styles', Alias: 'styles', Subject: 'Hi', HtmlBody } });
    assert.equal(t.status, 200, t.text);
    const send = await timedWithHealth(() => s.request('POST', '/email/withTemplate', { body: { From: FROM, To: 'a@example.net', TemplateAlias: 'styles', TemplateModel: {} } }));
    assert.equal(send.r.status, 422, send.r.text);
    assert.equal(send.r.body.ErrorCode, 1122);
    assert.match(send.r.body.Message, /Inlining the CSS would match 1000 style rules against 3004 elements.*InlineCss false/);
    assertWithin(send.ms, BOUND_MS, 'withTemplate');
    const plain = await s.request('POST', '/email/withTemplate', { body: { From: FROM, To: 'a@example.net', TemplateAlias: 'styles', TemplateModel: {}, InlineCss: false } });
    assert.equal(plain.status, 200, plain.text);
    const check = await s.request('POST', '/templates/validate', { body: { Subject: 'x', HtmlBody, TestRenderModel: {} } });
    assert.equal(check.status, 422, check.text);
    assert.match(check.body.Message, /Inlining the CSS/);
    const unstyled = await s.request('POST', '/templates/validate', { body: { Subject: 'x', HtmlBody, TestRenderModel: {}, InlineCssForHtmlTestRender: false } });
    assert.equal(unstyled.status, 200, unstyled.text);
  });

  it("the console editor's check and preview, for a viewer, answer 422 with the reason" + TIMED, LEFT_TO_PERF, async () => {
    const c = new ConsoleClient(s);
    assert.equal((await c.signIn(VIEWER)).status, 303);
    const form = { subject: 'x', htmlbody: LOOPS, textbody: '', model: JSON.stringify(MODEL) };
    const started = performance.now();
    const check = await c.post(`/console/s/${s.serverId}/templates/${templateId}/check`, form);
    assertWithin(performance.now() - started, BOUND_MS, 'the editor check');
    assert.equal(check.status, 422, check.text);
    const body = JSON.parse(check.text);
    assert.equal(body.ErrorCode, 1122);
    assert.match(body.Message, /too much work/);
    const preview = await c.post(`/console/s/${s.serverId}/templates/${templateId}/preview`, form);
    assert.equal(preview.status, 422, preview.text);
    assert.match(preview.text, /too much work/);
  });
});
