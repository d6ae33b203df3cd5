// Every log line the service writes while sending through an authenticated relay, refusing bad tokens and
// posting webhooks is captured at the most verbose level: no token, password or secret may appear in any.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/infra/logger.js';
import { addConfirmedSender } from '../helpers/senders.js';
import { ACCOUNT_TOKEN, SERVER_TOKEN, startService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

const RELAY_PASS = 'relay-Pa55word-zz9';
const METRICS_TOKEN = 'metrics-token-secret-777777';

describe('no secret reaches the log', () => {
  let s: TestService;
  let sink: SmtpSink;
  const lines: string[] = [];
  before(async () => {
    sink = await startSmtpSink({ auth: { user: 'relay-user', pass: RELAY_PASS } });
    const capture = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        cb();
      },
    });
    s = await startService({
      env: { MAILROOM_SMTP_RELAY: `smtp://relay-user:${RELAY_PASS}@127.0.0.1:${sink.port}`, MAILROOM_METRICS_TOKEN: METRICS_TOKEN, MAILROOM_LOG_LEVEL: 'trace' },
      logger: createLogger('trace', capture),
    });
    await addConfirmedSender(s, 'logs@example.test');
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  it('logs each delivery attempt, and no token, password or secret in any line', async () => {
    assert.equal((await s.request('POST', '/email', { body: { From: 'logs@example.test', To: 'a@example.net', Subject: 's', TextBody: 't' } })).status, 200);
    assert.equal((await s.request('GET', '/server', { token: 'wrong-token-but-long-enough-000' })).status, 401);
    assert.equal((await s.request('GET', '/servers?count=10&offset=0', { accountToken: ACCOUNT_TOKEN })).status, 200);
    await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    await fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer guessed-token-1234567890' } });
    // A relay that refuses: the warning carries the reply, not the credentials.
    sink.rcptReplies.set('b@example.net', { code: 451, message: '4.3.0 try later' });
    await s.request('POST', '/email', { body: { From: 'logs@example.test', To: 'b@example.net', Subject: 's', TextBody: 't' } });
    await s.drain();

    const delivery = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'delivery');
    assert.deepEqual(delivery.map((l) => [l.domain, l.outcome]).sort(), [['example.net', 'deferred'], ['example.net', 'delivered']]);
    for (const l of delivery) {
      assert.equal(typeof l.messageId, 'string');
      assert.equal(typeof l.durationMs, 'number');
      assert.match(String(l.reply), /^(250|451)/);
    }
    const deferred = delivery.find((l) => l.outcome === 'deferred')!;
    assert.equal(deferred.retryInMs, 60_000);

    assert.ok(lines.length > 5);
    const secrets = [SERVER_TOKEN, ACCOUNT_TOKEN, RELAY_PASS, METRICS_TOKEN, 'wrong-token-but-long-enough-000', 'guessed-token-1234567890', 'test-secret-key-test-secret-key-0123456789'];
    for (const line of lines) for (const secret of secrets) assert.ok(!line.includes(secret), `a log line holds a secret: ${line}`);
  });
});
