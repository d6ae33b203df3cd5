// bench/loop-attacks: what a client or a stranger can send that might hold the event loop, each attack run
// against one service while /healthz is asked every 20 ms, with the service's own idle figures (the ceiling:
// the machine's noise) measured first in the same run. The bar: /healthz p99 under 200 ms, max under 1 s.
//   npm run bench:loop-attacks        (BENCH_DB=sqlite,postgres by default; PostgreSQL skipped when unreachable)
// The service runs in this process (test/helpers/service.ts: real database, HTTP on loopback, the inbound
// listener; its job runner not started, so an accepted bulk request is not expanded meanwhile), one child
// process per database. Every body is built before the probing starts.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import nodemailer from 'nodemailer';
import { sql, type Kysely } from 'kysely';
import { limitedRead } from '../src/domain/read-limit.js';
import { domainReportAddress } from '../src/domain/dmarc/report-address.js';
import type { Database } from '../src/infra/db/schema.js';
import { inboundSmtpPort } from '../src/smtp-listeners/inbound-listener.js';
import { reportMail } from '../test/domain/dmarc/helpers.js';
import { reportXmlOf } from '../test/domain/dmarc/reports.js';
import { sendInbound, startInbound } from '../test/domain/inbound/inbound-helpers.js';
import { signedInPair } from '../test/http/console/helpers.js';
import { quantile, startHealthProbe } from '../test/helpers/health-probe.js';
import { addConfirmedSender } from '../test/helpers/senders.js';
import { benchDialects, pgReachable } from './bench-db.js';
import { bulkRequestBody } from './bulk-request.js';

const FROM = 'news@example.com';
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

if (!process.env.LOOP_ATTACKS_CHILD) {
  for (const dialect of benchDialects()) {
    if (dialect === 'postgres' && !(await pgReachable())) {
      console.log('\nPostgreSQL: skipped (not reachable)');
      continue;
    }
    const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', new URL(import.meta.url).pathname], {
      stdio: 'inherit',
      env: { ...process.env, LOOP_ATTACKS_CHILD: '1', MAILROOM_TEST_DB: dialect },
    });
    if (r.status !== 0) process.exitCode = 1;
  }
  process.exit();
}

const dialect = process.env.MAILROOM_TEST_DB ?? 'sqlite';
const t = await startInbound({ MAILROOM_LOG_LEVEL: 'warn' });
const s = t.s;
await addConfirmedSender(s, FROM);
const { admin } = await signedInPair(s);

// A Sandbox server (the Mailpit API reads its messages) with a 5 MB HTML message and a 9.8 MB one.
const created = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'CI inbox', DeliveryType: 'Sandbox' } });
const sandboxToken: string = created.body.ApiTokens[0];
const mailpitAuth = { authorization: `Basic ${Buffer.from(`ci:${sandboxToken}`).toString('base64')}` };
const html = `<html><head><style>.c{display:flex;margin:1em} td>p{color:red}</style></head><body>${'<table width="600"><tr><td class="c" style="padding:2px"><p>text</p><img src="a.svg"></td></tr></table>'.repeat(50_000)}</body></html>`;
const htmlSent = await s.request('POST', '/email', { token: sandboxToken, body: { From: FROM, To: 'dev@example.net', Subject: 'Large HTML', HtmlBody: html } });
if (htmlSent.status !== 200) throw new Error(`the 5 MB HTML message: ${htmlSent.text}`);
const attachment = Buffer.alloc(7_300_000, 7).toString('base64');
const bigSent = await s.request('POST', '/email', {
  token: sandboxToken,
  body: { From: FROM, To: 'dev@example.net', Subject: 'Large', TextBody: 'see the file', Attachments: [{ Name: 'big.pdf', ContentType: 'application/pdf', Content: attachment }] },
});
if (bigSent.status !== 200) throw new Error(`the 9.8 MB message: ${bigSent.text}`);

// A 9.8 MB inbound message, for its console page.
const inboundText = `${'<&> a long line of a forwarded log\n'.repeat(270_000)}THE END`;
const received = await sendInbound(s, { to: t.address, subject: 'Huge inbound', text: inboundText });
if (!received.ok) throw new Error(`the 9.8 MB inbound message: ${received.response}`);
const inboundId = /as ([0-9a-f-]{36})/.exec(received.response)![1]!;

// The bodies, built now.
const four = Buffer.from(bulkRequestBody(FROM, 130_000));
const huge = Buffer.from(bulkRequestBody(FROM, 480_000));
const domain = await s.ctx.db.selectFrom('domains').select('id').where('name', '=', 'example.com').executeTakeFirstOrThrow();
const reportTo = domainReportAddress(s.ctx, domain.id);
// 199,999 records, one under the most a report may carry (dmarc/report.ts), each as short as the reader
// takes it so that the XML stays under the 32 MB a report may unpack to (dmarc/archive.ts).
const records = Array.from({ length: 199_999 }, (_, i) => `<record><row><source_ip>198.51.${(i >> 8) & 255}.${i & 255}</source_ip><count>3</count><policy_evaluated><dkim>pass</dkim><spf>fail</spf></policy_evaluated></row></record>`);
const reportXml = reportXmlOf({ records: 0, orgName: 'Enterprise Outlook', reportId: 'loop-attacks' }).replace('\n</feedback>', `${records.join('\n')}\n</feedback>`);
const report = { name: 'enterprise.protection.outlook.com!example.com!1732579200!1732665600!big.xml.gz', bytes: gzipSync(reportXml) };
const reportRaw = reportMail(report, { to: reportTo });

const endless = (db: Kysely<Database>) =>
  db
    .withRecursive('c(i)', (qb) => qb.selectNoFrom(sql<number>`1`.as('i')).unionAll((u) => u.selectFrom('c').select(sql<number>`i + 1`.as('i')).where(sql.ref('i'), '<', 1_000_000_000)))
    .selectFrom('c')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .execute();

const status = (answers: Array<{ status: number }>) => [...new Set(answers.map((a) => a.status))].join(',');

const attacks: Array<[string, () => Promise<string>]> = [
  [`four ${mb(four.length)} bulk bodies at once (130,000 entries each)`, async () => status(await Promise.all([0, 1, 2, 3].map(() => s.request('POST', '/email/bulk', { raw: four }))))],
  [`one ${mb(huge.length)} bulk body (480,000 entries)`, async () => status([await s.request('POST', '/email/bulk', { raw: huge })])],
  [
    `two searches to their time limit (${s.ctx.database.readLimitMs / 1000} s)`,
    async () => (await Promise.all([0, 1].map(() => limitedRead(s.ctx, undefined, (ctx) => endless(ctx.db)).then(() => 'ended', (e: Error) => e.constructor.name)))).join(','),
  ],
  [
    `HTML check of a ${mb(html.length)} document, six at once`,
    async () => status(await Promise.all(Array.from({ length: 6 }, () => fetch(`${s.url}/mailpit/api/v1/message/${htmlSent.body.MessageID}/html-check`, { headers: mailpitAuth }).then(async (r) => (await r.arrayBuffer(), r))))),
  ],
  [
    `DMARC report of 199,999 records (${mb(reportXml.length)} XML, ${mb(report.bytes.length)} gzip) over SMTP`,
    async () => {
      const tr = nodemailer.createTransport({ host: '127.0.0.1', port: inboundSmtpPort(s.ctx)!, secure: false, ignoreTLS: true });
      try {
        const code = (await tr.sendMail({ envelope: { from: 'dmarcreport@microsoft.com', to: reportTo }, raw: reportRaw })).response.slice(0, 3);
        const stored = await s.ctx.db.selectFrom('dmarc_records').select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        return `${code}, ${Number(stored.n).toLocaleString('en-US')} records`;
      } finally {
        tr.close();
      }
    },
  ],
  [
    'Mailpit inbox list with a 9.8 MB message, 5 times',
    async () => {
      const out: Response[] = [];
      for (let i = 0; i < 5; i++) out.push(await fetch(`${s.url}/mailpit/api/v1/messages`, { headers: mailpitAuth }).then(async (r) => (await r.arrayBuffer(), r)));
      return status(out);
    },
  ],
  [
    'console page of a 9.8 MB inbound message, 5 times',
    async () => {
      const out: Array<{ status: number }> = [];
      for (let i = 0; i < 5; i++) out.push(await admin.get(`/console/s/${s.serverId}/inbound/messages/${inboundId}`));
      return status(out);
    },
  ],
];

const rows: string[][] = [];
const fmt = (n: number) => n.toFixed(n < 10 ? 1 : 0);
const figures = (l: number[]) => [String(l.length), fmt(quantile(l, 0.5)), fmt(quantile(l, 0.99)), fmt(l[l.length - 1]!)];

// The ceiling: /healthz alone for 3 s.
await fetch(`${s.url}/healthz`).then((r) => r.arrayBuffer());
const idle = startHealthProbe(s.url, 20);
await new Promise((r) => setTimeout(r, 3_000));
rows.push(['idle (the ceiling)', '-', '3.0', ...figures((await idle.stop()).latencies), '']);

for (const [name, run] of attacks) {
  global.gc?.();
  await new Promise((r) => setTimeout(r, 500));
  const probe = startHealthProbe(s.url, 20);
  const t0 = performance.now();
  const answer = await run().catch((e: Error) => `error: ${e.message.slice(0, 60)}`);
  const seconds = (performance.now() - t0) / 1000;
  const { latencies, failures } = await probe.stop();
  const p99 = quantile(latencies, 0.99);
  const max = latencies[latencies.length - 1]!;
  rows.push([name, answer, seconds.toFixed(1), ...figures(latencies), `${p99 < 200 && max < 1000 ? 'ok' : 'OVER'}${failures ? ` (${failures} failed)` : ''}`]);
  console.error(`  ${dialect}: ${name}: ${answer} in ${seconds.toFixed(1)} s, p99 ${fmt(p99)} max ${fmt(max)}`);
}

const head = ['attack', 'answer', 's', 'probes', 'p50 ms', 'p99 ms', 'max ms', 'bar'];
console.log(`\nbench/loop-attacks on ${dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'} (load ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
console.log(`| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
await t.close();
process.exit(0);
