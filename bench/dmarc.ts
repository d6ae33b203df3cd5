// bench/dmarc: DMARC aggregate report ingestion in records per second, with few-megabyte reports mailed over
// SMTP to the inbound listener, which answers 250 only once the report and its records are committed.
//   npm run bench:dmarc     (BENCH_REPORTS=6 reports of BENCH_RECORDS=10000 records each by default)
// Each report: ~4.5 MB of XML (the large reporters' biggest daily reports), gzip-compressed and attached as
// Microsoft and Yahoo send it. Beside it, in the same run: the bare figure of bench/inbound (the same client
// sending the same mail to a bare SMTP sink in a child process: the transfer ceiling), and the parse-only
// ceiling (gunzip + XML + records, no database). The service runs in this process with production settings.
import { fork } from 'node:child_process';
import { execSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import nodemailer from 'nodemailer';
import { bootstrap } from '../src/domain/accounts/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { benchDatabase, pgReachable } from './bench-db.js';
import { createContext } from '../src/context.js';
import { reportXml } from '../src/domain/dmarc/archive.js';
import { domainReportAddress } from '../src/domain/dmarc/report-address.js';
import { parseReport } from '../src/domain/dmarc/report.js';
import { migrateToLatest } from '../src/infra/db/migrate.js';
import { startInboundListener } from '../src/smtp-listeners/inbound-listener.js';
import { reportXmlOf } from '../test/domain/dmarc/reports.js';
import { reportMail } from '../test/domain/dmarc/helpers.js';

const REPORTS = Number(process.env.BENCH_REPORTS ?? 6);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000);
const SECRET = 'bench-secret-key-bench-secret-key-0123456789';

const files = Array.from({ length: REPORTS + 1 }, (_, i) => {
  const xml = reportXmlOf({ records: RECORDS, orgName: 'Enterprise Outlook', reportId: `bench-${i}`, alignedIps: ['192.0.2.1', '192.0.2.2'] });
  return { name: `enterprise.protection.outlook.com!example.com!1732579200!1732665600!${i}.xml.gz`, xml, bytes: gzipSync(xml) };
});
const xmlMb = files[0].xml.length / 1e6;

async function sendAll(port: number, to: string): Promise<number> {
  const t = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  // The first mail warms up (JIT, pools), not measured.
  await t.sendMail({ envelope: { from: 'dmarcreport@microsoft.com', to }, raw: reportMail(files[0], { to }) });
  const mails = files.slice(1).map((f) => reportMail(f, { to }));
  const t0 = performance.now();
  for (const raw of mails) await t.sendMail({ envelope: { from: 'dmarcreport@microsoft.com', to }, raw });
  t.close();
  return (performance.now() - t0) / 1000;
}

async function benchMailroom(dialect: 'sqlite' | 'postgres'): Promise<{ seconds: number; cpuMs: number }> {
  const database = await benchDatabase(dialect, 'dmarc', { poolSize: 20 });
  if (!database) throw new Error('PostgreSQL is not reachable');
  const config = loadConfig({
    MAILROOM_DATABASE_URL: database.url,
    MAILROOM_LOG_LEVEL: 'warn',
    MAILROOM_SERVER_TOKEN: 'bench-server-token-000000000000001',
    MAILROOM_ACCOUNT_TOKEN: 'bench-account-token-00000000000001',
    MAILROOM_INBOUND_SMTP_PORT: '0',
  });
  const ctx = createContext(config, { secretKey: SECRET, dbOptions: database.dbOptions });
  try {
    await migrateToLatest(ctx.database);
    await bootstrap(ctx.database, config, Date.now());
    const account = await ctx.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
    const d = await ctx.db.insertInto('domains').values({ account_id: account.id, name: 'example.com', created_at: Date.now() }).returning('id').executeTakeFirstOrThrow();
    const listener = await startInboundListener(ctx);
    const cpu0 = process.cpuUsage();
    const seconds = await sendAll(listener.port, domainReportAddress(ctx, d.id));
    const cpu = process.cpuUsage(cpu0);
    await listener.stop();
    const stored = await ctx.db.selectFrom('dmarc_records').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow();
    if (Number(stored.n) !== (REPORTS + 1) * RECORDS) throw new Error(`${dialect}: ${stored.n} of ${(REPORTS + 1) * RECORDS} records stored`);
    return { seconds, cpuMs: (cpu.user + cpu.system) / 1000 };
  } finally {
    await ctx.close();
    await database.drop();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const records = REPORTS * RECORDS;
console.log(`bench/dmarc: ${REPORTS} reports x ${fmt(RECORDS)} records (${xmlMb.toFixed(1)} MB XML, ${(files[0].bytes.length / 1e6).toFixed(2)} MB gzip each), mailed one after another over one SMTP connection`);
const rows: Array<[string, string]> = [];

const sink = fork(new URL('./sink-process.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const sinkPort: number = (await new Promise<any>((r) => sink.once('message', r))).port;
const bare = await sendAll(sinkPort, 'sink@bench.example');
rows.push(['bare SMTP sink (ceiling: the transfer)', `${fmt(records / bare)} records/s  (${(REPORTS / bare).toFixed(1)} reports/s)`]);

const p0 = performance.now();
for (const f of files.slice(1)) parseReport(reportXml(f.bytes));
const parse = (performance.now() - p0) / 1000;
rows.push(['parse only (gunzip + XML + records, no database)', `${fmt(records / parse)} records/s`]);

const show = (r: { seconds: number; cpuMs: number }) => `${fmt(records / r.seconds)} records/s stored before the 250  (${(REPORTS / r.seconds).toFixed(2)} reports/s, ${(r.cpuMs / REPORTS).toFixed(0)} CPU ms/report)`;
const only = process.env.BENCH_DB ?? 'both';
if (only !== 'postgres') rows.push(['mailroom, SQLite (SMTP in -> records committed)', show(await benchMailroom('sqlite'))]);
if (only !== 'sqlite') {
  const pgOk = await pgReachable();
  rows.push(['mailroom, PostgreSQL (SMTP in -> records committed)', pgOk ? show(await benchMailroom('postgres')) : 'skipped: PostgreSQL not reachable']);
}
for (const [k, v] of rows) console.log(`${k.padEnd(52)} ${v}`);
console.log(`uptime: ${execSync('uptime').toString().trim()}`);
sink.kill();
process.exit(0);
