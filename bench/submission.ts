// bench/submission: messages per second durably accepted over SMTP submission, against Postfix's own intake of
// the same load in the same run.   npm run bench:submission   (BENCH_MESSAGES=20000, BENCH_SESSIONS=20, BENCH_DB)
// The load is Postfix's smtp-source: BENCH_SESSIONS parallel sessions, several messages per connection (-d),
// each a 2 KB message (headers and body). mailroom runs in this process (role api: the listener and the
// accept path, no delivery) on a fresh SQLite file (synchronous=FULL, every 250 after an fdatasync); since
// smtp-source cannot authenticate, a child process (auth-proxy-process.ts) adds AUTH PLAIN to each session.
// Postfix is a private instance (bench/postfix.ts) with delivery deferred, so that both sides only take in
// and store; its smtp-source talks to it directly (no proxy).
import { execFile, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { startSubmissionListener } from '../src/smtp-listeners/submission-listener.js';
import { type BenchDialect, benchDatabase, benchDialects, seedSender } from './bench-db.js';
import { runPostfix } from './postfix.js';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 20);
const TOKEN = 'bench-server-token-000000000000001';
const FROM = 'sender@bench.example';
const SMTP_SOURCE = '/usr/sbin/smtp-source';

const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-submission-'));
// A 2 KB message: the headers an application writes and a text body.
const head = [`From: Bench <${FROM}>`, 'To: rcpt@example.net', 'Subject: Your receipt', 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', 'X-PM-Tag: receipt', ''];
const body: string[] = [];
while ([...head, ...body].join('\r\n').length < 2048 - 80) body.push('Thank you for your order. It ships tomorrow; the invoice is in your account page.');
const messageFile = join(dir, 'message.eml');
writeFileSync(messageFile, [...head, ...body].join('\n') + '\n');
const messageBytes = [...head, ...body].join('\r\n').length + 2;

/** Runs smtp-source and returns the wall-clock seconds it took. */
function smtpSource(port: number, count: number): Promise<number> {
  const args = ['-s', String(SESSIONS), '-m', String(count), '-d', '-F', messageFile, '-f', FROM, '-t', 'rcpt@example.net', '-M', 'bench.localhost', `127.0.0.1:${port}`];
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    execFile(SMTP_SOURCE, args, { maxBuffer: 1 << 24 }, (err, _out, stderr) => {
      if (err) return reject(new Error(`smtp-source failed: ${stderr || err.message}`));
      resolve(Number(process.hrtime.bigint() - t0) / 1e9);
    });
  });
}

// mailroom, as `mailroom serve --role api` builds it, with the submission listener only; on SQLite, then on
// PostgreSQL (BENCH_DB picks).
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`bench/submission: smtp-source, ${SESSIONS} sessions, ${fmt(MESSAGES)} messages of ${fmt(messageBytes)} bytes`);

async function runMailroom(dialect: BenchDialect): Promise<number | null> {
  const database = await benchDatabase(dialect, 'submission-db');
  if (!database) {
    console.log(`mailroom submission, ${dialect}: skipped (PostgreSQL not reachable)`);
    return null;
  }
  const config = loadConfig({
    MAILROOM_DATABASE_URL: database.url,
    MAILROOM_LOG_LEVEL: 'warn',
    MAILROOM_SERVER_TOKEN: TOKEN,
    MAILROOM_ACCOUNT_TOKEN: 'bench-account-token-00000000000001',
    MAILROOM_SECRET_KEY: 'bench-secret-key-bench-secret-key-0123456789',
    MAILROOM_SUBMISSION_PORT: '0',
  });
  const ctx = createContext(config, { dbOptions: database.dbOptions });
  try {
    await seedSender(ctx, config, FROM);
    const listener = await startSubmissionListener(ctx);
    const proxy = fork(new URL('./auth-proxy-process.ts', import.meta.url).pathname, [String(listener.port), TOKEN], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const proxyPort = await new Promise<number>((resolve) => proxy.once('message', (m: { port: number }) => resolve(m.port)));
    const count = async () => Number((await ctx.db.selectFrom('messages').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    await smtpSource(proxyPort, Math.min(2000, MESSAGES)); // warm-up (JIT, page cache)
    const before = await count();
    const groups0 = { ...ctx.sendBatcher.stats };
    const cpu0 = process.cpuUsage();
    const seconds = await smtpSource(proxyPort, MESSAGES);
    const cpu = process.cpuUsage(cpu0);
    const stored = (await count()) - before;
    const groups = ctx.sendBatcher.stats;
    proxy.kill();
    await listener.stop();
    await ctx.sendBatcher.drain();
    if (stored !== MESSAGES) throw new Error(`smtp-source sent ${MESSAGES} messages, ${stored} were stored`);
    const rate = MESSAGES / seconds;
    console.log(
      `mailroom submission, ${dialect}: ${fmt(rate)} msg/s durably accepted (${seconds.toFixed(1)} s; ${fmt(stored)} stored), ` +
        `server CPU ${fmt((cpu.user + cpu.system) / MESSAGES)} µs/msg (this process), ${((groups.requests - groups0.requests) / Math.max(1, groups.transactions - groups0.transactions)).toFixed(1)} messages per group commit`,
    );
    return rate;
  } finally {
    await ctx.close();
    await database.drop();
  }
}

const rates = new Map<BenchDialect, number>();
for (const d of benchDialects()) {
  const r = await runMailroom(d);
  if (r !== null) rates.set(d, r);
}
// Postfix's intake of the same load: smtpd + cleanup writing (and fsyncing) each message to its queue.
let postfixRate: number | null = null;
// BENCH_POSTFIX=0 leaves Postfix out (a CPU profile of mailroom alone: its set-up and clean-up run in this process).
try {
  if (process.env.BENCH_POSTFIX === '0') throw new Error('BENCH_POSTFIX=0');
  postfixRate = await runPostfix(
    9, // the discard port; delivery is deferred anyway
    async (port) => {
      await smtpSource(port, Math.min(2000, MESSAGES));
      const s = await smtpSource(port, MESSAGES);
      return MESSAGES / s;
    },
    ['defer_transports = smtp, relay', 'smtpd_client_connection_count_limit = 0', 'smtpd_client_message_rate_limit = 0', 'in_flow_delay = 0'],
  );
  console.log(`Postfix intake:      ${fmt(postfixRate)} msg/s (the same smtp-source load, delivery deferred)`);
} catch (err) {
  console.log(`Postfix intake: skipped (${(err as Error).message})`);
}
const avg = loadavg().map((n) => n.toFixed(1)).join(' ');
console.log(`load average: ${avg} on ${cpus().length} CPUs (other work on the machine lowers every figure)`);
for (const [d, r] of rates) console.log(`mailroom, ${d}: ${fmt(r)} msg/s vs target 2,000${postfixRate ? `; ${(r / postfixRate).toFixed(2)}x Postfix (target 1.2x)` : ''}`);
if (rates.has('sqlite') && rates.has('postgres')) console.log(`PostgreSQL / SQLite: ${((rates.get('postgres') ?? 0) / (rates.get('sqlite') ?? 1)).toFixed(2)} (target >= 0.85)`);
rmSync(dir, { recursive: true, force: true });
