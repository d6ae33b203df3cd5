// /healthz, /readyz and /metrics as a monitoring system sees them, and the HTTP limits that cut off a client
// that never finishes its request.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from '../../../helpers/senders.js';
import { startService, type TestService } from '../../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../../helpers/smtp-sink.js';
import { assertWithin, LEFT_TO_PERF, TIMED } from '../../../helpers/timing.js';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample line of Prometheus text, e.g. metric('x_total{outcome="delivered"}'). */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : null;
}

describe('operations endpoints', () => {
  let s: TestService;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_METRICS_TOKEN: METRICS_TOKEN } });
    await addConfirmedSender(s, 'ops@example.test');
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  it('/healthz answers without touching the database; /readyz checks database and schema', async () => {
    assert.deepEqual((await s.request('GET', '/healthz', { token: null })).body, { status: 'ok' });
    const r = await s.request('GET', '/readyz', { token: null });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { status: 'ok', checks: { database: 'ok', schema: 'ok' } });
  });

  it('/readyz is 503 naming the failed check when the schema is behind', async () => {
    await s.ctx.db.deleteFrom('mailroom_migration' as never).where('name' as never, '=', '0017-worker-heartbeats' as never).execute();
    try {
      const r = await s.request('GET', '/readyz', { token: null });
      assert.equal(r.status, 503);
      assert.equal(r.body.checks.schema, 'pending migrations: 0017-worker-heartbeats');
    } finally {
      await s.ctx.db.insertInto('mailroom_migration' as never).values({ name: '0017-worker-heartbeats', applied_at: Date.now() } as never).execute();
    }
  });

  it('/readyz in a worker process is 503 when its heartbeat is stale', async () => {
    s.ctx.runner.start();
    try {
      await s.ctx.runner.heartbeat();
      assert.equal((await s.request('GET', '/readyz', { token: null })).body.checks.worker, 'ok');
      s.clock.advance(120_000);
      const r = await s.request('GET', '/readyz', { token: null });
      assert.equal(r.status, 503);
      assert.match(r.body.checks.worker, /^heartbeat 120 s old$/);
    } finally {
      await s.ctx.runner.stop();
    }
  });

  it('/metrics needs the metrics token when one is set', async () => {
    assert.equal((await fetch(`${s.url}/metrics`)).status, 401);
    assert.equal((await fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-000000000000' } })).status, 401);
    const ok = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  });

  it('counts an accepted and delivered message, the SMTP transaction, HTTP time by route and the queue', async () => {
    const sent = await s.request('POST', '/email', { body: { From: 'ops@example.test', To: 'a@example.net', Subject: 'm', TextBody: 'x' } });
    assert.equal(sent.status, 200);
    const scrape = async () => (await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const queued = await scrape();
    assert.equal(sample(queued, 'mailroom_messages_accepted_total{stream="outbound",source="api"}'), 1);
    assert.equal(sample(queued, 'mailroom_queue_depth{queue="deliver"}'), 1);
    assert.ok((sample(queued, 'mailroom_queue_oldest_job_age_seconds{queue="deliver"}') ?? -1) >= 0);
    assert.equal(sample(queued, 'mailroom_http_request_duration_seconds_count{method="POST",route="/email",status="200"}'), 1);
    assert.ok((sample(queued, 'mailroom_group_commit_size_count{committer="accept"}') ?? 0) >= 1);
    await s.drain();
    const done = await scrape();
    assert.equal(sample(done, 'mailroom_delivery_attempts_total{outcome="delivered"}'), 1);
    assert.equal(sample(done, 'mailroom_smtp_transaction_seconds_count{outcome="accepted"}'), 1);
    assert.equal(sample(done, 'mailroom_queue_depth{queue="deliver"}'), null);
    assert.equal(sink.messages.length, 1);
  });
});

describe('HTTP limits', () => {
  let s: TestService;
  before(async () => {
    s = await startService({ env: { MAILROOM_HTTP_REQUEST_TIMEOUT_SECONDS: '1', MAILROOM_HTTP_HEADERS_TIMEOUT_SECONDS: '1' } });
  });
  after(() => s.close());

  it('a chunked body that never ends is cut off after the request timeout' + TIMED, LEFT_TO_PERF, async () => {
    const port = new URL(s.url).port;
    const t0 = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(port), '127.0.0.1');
      let got = '';
      sock.on('data', (d) => (got += d.toString()));
      sock.on('close', () => resolve(got));
      sock.on('error', reject);
      sock.write(`POST /email HTTP/1.1\r\nHost: x\r\nX-Service-Server-Token: ${s.serverToken}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n`);
      // ...and nothing more, ever.
    });
    const elapsed = Date.now() - t0;
    assertWithin(elapsed, 10_000, 'cut off');
    assert.match(answer, /^HTTP\/1\.1 408/);
  });
});
