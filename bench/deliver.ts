// bench/deliver: messages per second from accepted (message rows + delivery jobs committed) to handed off
// to an SMTP sink (250 after DATA), DKIM-signed (RSA-2048, relaxed/relaxed), on SQLite and on PostgreSQL.
//   npm run bench:deliver          (BENCH_MESSAGES=5000 by default)
// Beside it, in the same run and against the same sink: the ceiling, the same messages composed, signed and
// pushed straight into the sink by nodemailer's pooled SMTP transport; and, when Postfix is installed and
// we may run it, Postfix relaying the same signed messages to the same sink.
// The sink (smtp-server) runs in a child process; the service's worker runs in this process with the
// production settings (MAILROOM_DELIVERY_CONCURRENCY 64, domain concurrency 16, SQLite synchronous=FULL).
import { fork } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { loadavg } from 'node:os';
import nodemailer from 'nodemailer';
import { bootstrap } from '../src/domain/accounts/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { benchDatabase, pgReachable } from './bench-db.js';
import { createContext, type AppContext } from '../src/context.js';
import { migrateToLatest } from '../src/infra/db/migrate.js';
import { registerDelivery } from '../src/domain/delivery/register.js';
import { deliveryParts } from '../src/worker.js';
import { acceptMessages } from '../src/domain/accepting/accept.js';
import { runPostfix } from './postfix.js';

const N = Number(process.env.BENCH_MESSAGES ?? 5000);
const FROM = 'sender@bench.example';
const SECRET = 'bench-secret-key-bench-secret-key-0123456789';
const DOMAINS = 100;

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicB64 = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

// --- the sink -------------------------------------------------------------------------------------------
const sinkProc = fork(new URL('./sink-process.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const sinkPort = await new Promise<number>((resolve) => sinkProc.once('message', (m: any) => resolve(m.port)));
const ask = (what: string) =>
  new Promise<{ count: number; bytes: number; cpuMs: number }>((resolve) => {
    sinkProc.once('message', (m: any) => resolve(m));
    sinkProc.send(what);
  });
/** Waits until the sink has n messages; returns the sink's CPU milliseconds per message since the reset. */
async function waitForSink(n: number, timeoutMs = 600_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await ask('count');
    if (r.count >= n) return r.cpuMs / r.count;
    if (Date.now() > deadline) throw new Error(`sink got ${r.count} of ${n}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const message = (i: number) => ({
  From: `Bench <${FROM}>`,
  To: `rcpt${i}@d${i % DOMAINS}.example`,
  Subject: `Your receipt #${i}`,
  HtmlBody: '<html><body><p>Thank you for your order.</p><a href="https://example.net/o/1">See it</a></body></html>',
  TextBody: 'Thank you for your order. See it: https://example.net/o/1',
  Tag: 'receipt',
});

// --- mailroom --------------------------------------------------------------------------------------------
async function setup(dialect: 'sqlite' | 'postgres'): Promise<{ ctx: AppContext; cleanup(): Promise<void> }> {
  const database = await benchDatabase(dialect, 'deliver', { poolSize: 20 });
  if (!database) throw new Error('PostgreSQL is not reachable');
  const config = loadConfig({
    MAILROOM_DATABASE_URL: database.url,
    MAILROOM_LOG_LEVEL: 'warn',
    MAILROOM_SERVER_TOKEN: 'bench-server-token-000000000000001',
    MAILROOM_ACCOUNT_TOKEN: 'bench-account-token-00000000000001',
    MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sinkPort}`,
  });
  const ctx = createContext(config, { secretKey: SECRET, dbOptions: database.dbOptions });
  await migrateToLatest(ctx.database);
  await bootstrap(ctx.database, config, Date.now());
  const account = await ctx.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
  const domain = await ctx.db
    .insertInto('domains')
    .values({ account_id: account.id, name: 'bench.example', dkim_verified: 1, created_at: Date.now() })
    .returning('id')
    .executeTakeFirstOrThrow();
  await ctx.db.insertInto('sender_signatures').values({ account_id: account.id, domain_id: domain.id, email: FROM, name: 'Bench', confirmed: 1, created_at: Date.now() }).execute();
  await ctx.db
    .insertInto('dkim_keys')
    .values({ domain_id: domain.id, selector: 'mr1', private_key: ctx.secrets.seal(privatePem), public_key: publicB64, bits: 2048, state: 'active', created_at: Date.now(), activated_at: Date.now() })
    .execute();
  return {
    ctx,
    async cleanup() {
      await ctx.close();
      await database.drop();
    },
  };
}

async function accept(ctx: AppContext, n: number): Promise<void> {
  const server = await ctx.db.selectFrom('servers').select(['id', 'account_id']).executeTakeFirstOrThrow();
  const auth = { accountId: server.account_id, serverId: server.id, testMode: false };
  for (let i = 0; i < n; i += 500) {
    const out = await acceptMessages(ctx, auth, Array.from({ length: Math.min(500, n - i) }, (_, j) => message(i + j)));
    const bad = out.find((o) => o.result.ErrorCode !== 0);
    if (bad) throw new Error(`not accepted: ${JSON.stringify(bad.result)}`);
  }
}

/** Messages per second, and CPU milliseconds this process spent per message. */
async function benchMailroom(dialect: 'sqlite' | 'postgres'): Promise<{ rate: number; cpuMs: number; sinkMs: number }> {
  const { ctx, cleanup } = await setup(dialect);
  try {
    // Warm-up (JIT, connection pool, statement caches), not measured.
    await accept(ctx, 500);
    const stop = registerDelivery(ctx, deliveryParts(ctx));
    await ask('reset');
    ctx.runner.start();
    await waitForSink(500);
    await ctx.runner.stop();

    await accept(ctx, N);
    await ask('reset');
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    ctx.runner.start();
    const sinkMs = await waitForSink(N);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    await ctx.runner.stop();
    const left = await ctx.db.selectFrom('jobs').select((e) => e.fn.countAll().as('n')).where('queue', '=', 'deliver').executeTakeFirstOrThrow();
    const sent = await ctx.db.selectFrom('messages').select((e) => e.fn.countAll().as('n')).where('status', '=', 'Sent').executeTakeFirstOrThrow();
    if (Number(left.n) !== 0 || Number(sent.n) !== N + 500) throw new Error(`${dialect}: ${left.n} jobs left, ${sent.n} of ${N + 500} messages Sent`);
    await stop();
    return { rate: N / seconds, cpuMs: (cpu.user + cpu.system) / 1000 / N, sinkMs };
  } finally {
    await cleanup();
  }
}

// --- the ceiling: nodemailer straight into the sink --------------------------------------------------------
function nodemailerMessage(i: number) {
  const m = message(i);
  return { from: m.From, to: m.To, subject: m.Subject, html: m.HtmlBody, text: m.TextBody, headers: { 'X-Tag': m.Tag } };
}

async function pushWithNodemailer(port: number, n: number, dkim: boolean): Promise<number> {
  const transport = nodemailer.createTransport({
    pool: true,
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    maxConnections: 64,
    maxMessages: Infinity,
    ...(dkim ? { dkim: { domainName: 'bench.example', keySelector: 'mr1', privateKey: privatePem } } : {}),
  });
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 256 }, async () => {
      while (next < n) await transport.sendMail(nodemailerMessage(next++));
    }),
  );
  const s = (performance.now() - t0) / 1000;
  transport.close();
  return n / s;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`bench/deliver: ${fmt(N)} messages, 1 recipient each over ${DOMAINS} domains, DKIM rsa-sha256 2048-bit, sink in a child process`);
const rows: Array<[string, string]> = [];

if (process.env.BENCH_CEILING !== '0') {
  await ask('reset');
  await pushWithNodemailer(sinkPort, 500, true); // warm-up
  await ask('reset');
  const cpu0 = process.cpuUsage();
  const ceiling = await pushWithNodemailer(sinkPort, N, true);
  const cpu = process.cpuUsage(cpu0);
  const sinkMs = await waitForSink(N);
  rows.push(['nodemailer pool -> sink, signed (ceiling)', `${fmt(ceiling)} msg/s  (${((cpu.user + cpu.system) / 1000 / N).toFixed(2)} CPU ms/msg in the client, sink ${sinkMs.toFixed(2)})`]);
}

const show = (r: { rate: number; cpuMs: number; sinkMs: number }) => `${fmt(r.rate)} msg/s  (${r.cpuMs.toFixed(2)} CPU ms/msg in the service, sink ${r.sinkMs.toFixed(2)})`;
const only = process.env.BENCH_DB ?? 'both';
if (only !== 'postgres') rows.push(['mailroom, SQLite (accepted -> handed off)', show(await benchMailroom('sqlite'))]);
const pgOk = only !== 'sqlite' && (await pgReachable());
if (only !== 'sqlite') rows.push(['mailroom, PostgreSQL (accepted -> handed off)', pgOk ? show(await benchMailroom('postgres')) : 'skipped: PostgreSQL not reachable']);

if (process.env.BENCH_POSTFIX !== '0') {
  const r = await runPostfix(sinkPort, async (port) => {
    await ask('reset');
    const t0 = performance.now();
    await pushWithNodemailer(port, N, true);
    await waitForSink(N);
    return N / ((performance.now() - t0) / 1000);
  }).catch((err: Error) => `skipped: ${err.message}`);
  rows.push(['Postfix relaying to the sink (signed by the client)', typeof r === 'number' ? `${fmt(r)} msg/s` : r]);
}

for (const [k, v] of rows) console.log(`${k.padEnd(55)} ${v}`);
console.log('target: >= 1,000 signed messages/s end to end; load average at the end:', loadavg().map((l) => l.toFixed(1)).join(' '));
sinkProc.kill();
process.exit(0);
