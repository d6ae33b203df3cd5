// A manual check, not part of `npm test` (the Python client is not installable on the project's machines):
// a mailroom on SQLite seeded with every kind of record (a delivery, a deferral, a hard bounce, a spam
// complaint, an open, a click, inbound mail processed, blocked and refused), then drive.py calls every
// method of the hosted service's official Python client against it. Exits 1 when a call fails that is not
// listed in KNOWN below. Usage (README.md beside this file): npx tsx test/compat/python-sdk/run.ts
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { encodeVerp } from '../../../src/infra/mime/verp.js';
import { clickUrl, openUrl } from '../../../src/domain/tracking/tokens.js';
import { loadFixture } from '../../fixtures/load.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { deliverReport } from '../../domain/inbound/helpers.js';
import { sendInbound } from '../../domain/inbound/inbound-helpers.js';
import { startService } from '../../helpers/service.js';
import { startSmtpSink } from '../../helpers/smtp-sink.js';
import { startDnsServer } from '../../helpers/dns-server.js';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.js';

/** Calls whose failure is the client's model being stricter than what the specification or the published example answers. */
const KNOWN: Record<string, string> = {
  'outbound.send_batch(refused-item)': 'the specification: "A failed item holds only ErrorCode and Message"; the model requires To, SubmittedAt, MessageID',
  'bounces.get_delivery_stats': 'the published example: the first entry is {Name: "All", Count} without Type or TypeCode, which the model requires of every entry',
};

process.env.MAILROOM_TEST_DB ??= 'sqlite';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const sink = await startSmtpSink();
sink.rcptReplies.set('gone@dest.example', { code: 550, message: '5.1.1 No such user' });
sink.rcptReplies.set('later@dest.example', { code: 452, message: '4.2.2 Mailbox full' });
const dns = await startDnsServer();
dns.set('customer.example', [{ type: 'TXT', data: 'v=spf1 ip4:127.0.0.1 -all' }]);
const app = await startWebhookReceiver();
const s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_DNS_SERVERS: dns.address, MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
try {
  await addConfirmedSender(s, 'sender@example.com');
  const send = async (o: Record<string, unknown>) => {
    const r = await s.request('POST', '/email', { body: { From: 'Sender <sender@example.com>', To: 'reader@dest.example', Subject: 'Hi', HtmlBody: '<p><a href="https://example.org/a">a</a></p>', TextBody: 'hi', ...o } });
    if (r.status !== 200) throw new Error(r.text);
    return r.body.MessageID as string;
  };
  const ids: Record<string, string> = {
    tracked: await send({ TrackOpens: true, TrackLinks: 'HtmlAndText', Tag: 't', Metadata: { a: '1' }, Cc: 'cc@dest.example', Attachments: [{ Name: 'a.txt', Content: 'aGk=', ContentType: 'text/plain' }] }),
    bounced: await send({ To: 'gone@dest.example' }),
    transient: await send({ To: 'later@dest.example' }),
    complained: await send({ MessageStream: 'broadcast' }),
  };
  await s.drain();
  for (const url of [openUrl(s.ctx, { messageId: ids.tracked!, recipient: 'reader@dest.example' }), clickUrl(s.ctx, { messageId: ids.tracked!, recipient: 'reader@dest.example', link: 'https://example.org/a', location: 'HTML' })]) {
    await (await fetch(s.url + new URL(url).pathname, { headers: { 'user-agent': CHROME }, redirect: 'manual' })).arrayBuffer();
  }
  const rcpt = await s.ctx.db.selectFrom('message_recipients').select(['id', 'email']).where('message_id', '=', ids.complained!).executeTakeFirstOrThrow();
  const verp = encodeVerp(s.ctx.secrets, { messageId: ids.complained!, recipientId: rcpt.id }, s.config.returnPathDomain);
  await deliverReport(s, verp, loadFixture('arf-yahoo-abuse.eml', { recipient: rcpt.email, verp, messageId: ids.complained! }));
  // A color written in lower case, as the published example writes it: read back in the published spelling.
  await s.request('PUT', '/server', { body: { InboundHookUrl: `${app.url}/inbound`, Color: 'red' } });
  const address = (await s.request('GET', '/server')).body.InboundAddress as string;
  await s.request('POST', '/triggers/inboundrules', { body: { Rule: 'spammy.example' } });
  app.respond((r) => (r.json?.Subject === 'Refused' ? 403 : 200));
  await sendInbound(s, { to: `"Support" <${address}>`, cc: 'Ops <ops@acme.example>', subject: 'Invoice', attachments: [{ filename: 'i.pdf', content: Buffer.from('%PDF'), contentType: 'application/pdf' }] });
  await sendInbound(s, { from: 'offers@spammy.example', to: address, subject: 'Cheap' });
  await sendInbound(s, { to: address, subject: 'Refused' });
  await s.drain();
  s.ctx.runner.start();
  s.ctx.scheduler.start();

  const py = spawn(process.env.PYTHON ?? 'python3', [fileURLToPath(new URL('./drive.py', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, MR_URL: s.url, MR_SERVER: s.serverToken, MR_ACCOUNT: s.accountToken, MR_SERVER_ID: String(s.serverId), MR_IDS: JSON.stringify(ids) },
  });
  let out = '';
  py.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => py.on('exit', resolve));
  let unexpected = 0;
  for (const line of out.split('\n').filter(Boolean)) {
    const m = /^(ok|FAIL)\s+(\S+)/.exec(line);
    const known = m && m[1] === 'FAIL' ? KNOWN[m[2]!] : undefined;
    if (m && m[1] === 'FAIL' && !known) unexpected++;
    console.log(known ? `${line.slice(0, 160)}\n     known: ${known}` : line.slice(0, 2000));
  }
  console.log(`python exited ${code}; ${out.split('\n').filter((l) => l.startsWith('ok')).length} calls ok, ${unexpected} unexpected failures`);
  process.exitCode = code === 0 && unexpected === 0 ? 0 : 1;
} finally {
  await s.close();
  await sink.close();
  await dns.close();
  await app.close();
}
