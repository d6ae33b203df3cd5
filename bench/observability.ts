// bench/observability: what the Prometheus metrics and the per-delivery log line cost on the hot paths.
//   npm run bench:observability      (BENCH_SECONDS=5 per HTTP run, BENCH_MESSAGES=3000 per delivery run)
// mailroom has no switch to turn metrics off (nor should it), so the "off" runs replace the process's metric
// objects with no-ops after the context is built, and set the log level to warn (the per-attempt line is
// info). "On" is production: prom-client metrics and info lines, written synchronously to a file as pino
// writes to a redirected stdout. Printed, all from one run on this machine:
//  1. per call: a labelled histogram observe, a labelled counter inc, one delivery-attempt log line (written,
//     and filtered out at warn), in ns;
//  2. POST /email accepted msg/s with everything on and with metrics and info lines off, beside the ceiling
//     (a bare Fastify route answering the same body), autocannon in a child process, 50 connections;
//  3. messages delivered per second to an SMTP sink (child process), on and off, with CPU ms per message.
// SQLite (synchronous=FULL) on os.tmpdir(); BENCH_ROUNDS (3) rounds alternate on/off so that drifting load
// hits both; the median run of each is reported, every run listed.
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { pino } from 'pino';
import { bootstrap } from '../src/domain/accounts/bootstrap.js';
import { acceptMessages } from '../src/domain/accepting/accept.js';
import { registerDelivery } from '../src/domain/delivery/register.js';
import { loadConfig } from '../src/config.js';
import { createContext, type AppContext } from '../src/context.js';
import { buildApp } from '../src/http/app.js';
import { migrateToLatest } from '../src/infra/db/migrate.js';
import { createLogger } from '../src/infra/logger.js';
import { createMetrics, type Metrics } from '../src/infra/metrics.js';
import { deliveryParts } from '../src/worker.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const N = Number(process.env.BENCH_MESSAGES ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TOKEN = 'bench-server-token-000000000000001';
const FROM = 'sender@bench.example';
const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-obs-'));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');

// --- 1. per call ------------------------------------------------------------------------------------------
function perCall(fn: (i: number) => void, n = 200_000): number {
  for (let i = 0; i < 10_000; i++) fn(i); // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return Number(process.hrtime.bigint() - t0) / n;
}
const m = createMetrics({}, false);
const fileLog = (level: string) => createLogger(level, pino.destination({ dest: join(dir, `calls-${level}.log`), sync: true }));
const [info, warn] = [fileLog('info'), fileLog('warn')];
const line = (i: number) => ({ event: 'delivery', messageId: '0193a6b2-7c1e-7000-8000-00000000abcd', recipientId: i, domain: 'example.net', outcome: 'delivered', server: 'mx.example.net', reply: '250 2.0.0 Ok: queued as 4Xyz', durationMs: 12, attempt: 1 });
const calls = {
  observe: perCall((i) => m.httpDuration.observe({ method: 'POST', route: '/email', status: '200' }, (i % 50) / 1000)),
  inc: perCall(() => m.deliveryAttempts.inc({ outcome: 'delivered' })),
  logLine: perCall((i) => info.info(line(i), 'delivery attempt'), 50_000),
  logFiltered: perCall((i) => warn.info(line(i), 'delivery attempt')),
};

// --- services -----------------------------------------------------------------------------------------------
const noop = { observe() {}, inc() {} };
/** The process's metric objects replaced by no-ops (what "metrics off" would save). */
function metricsOff(metrics: Metrics): void {
  for (const k of ['httpDuration', 'messagesAccepted', 'deliveryAttempts', 'smtpTransactionSeconds', 'webhookDeliveries', 'inboundMessages', 'groupCommitSize', 'dbPoolWaitSeconds'] as const) {
    (metrics as unknown as Record<string, unknown>)[k] = noop;
  }
}

let serial = 0;
async function service(on: boolean, relay?: number): Promise<AppContext> {
  const n = ++serial;
  const config = loadConfig({
    MAILROOM_DATABASE_URL: join(dir, `mailroom-${n}.db`),
    MAILROOM_PORT: '0',
    MAILROOM_LOG_LEVEL: on ? 'info' : 'warn',
    MAILROOM_SERVER_TOKEN: TOKEN,
    MAILROOM_ACCOUNT_TOKEN: 'bench-account-token-00000000000001',
    MAILROOM_SECRET_KEY: 'bench-secret-key-bench-secret-key-0123456789',
    ...(relay ? { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${relay}` } : {}),
  });
  const logger = createLogger(config.logLevel, pino.destination({ dest: join(dir, `service-${n}.log`), sync: true }));
  const ctx = createContext(config, { logger });
  if (!on) metricsOff(ctx.metrics);
  await migrateToLatest(ctx.database);
  await bootstrap(ctx.database, config, Date.now());
  const account = await ctx.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
  const domain = await ctx.db.insertInto('domains').values({ account_id: account.id, name: 'bench.example', created_at: Date.now() }).returning('id').executeTakeFirstOrThrow();
  await ctx.db.insertInto('sender_signatures').values({ account_id: account.id, domain_id: domain.id, email: FROM, name: 'Bench', confirmed: 1, created_at: Date.now() }).execute();
  return ctx;
}

const message = (i: number) => ({ From: `Bench <${FROM}>`, To: `rcpt${i}@d${i % 50}.example`, Subject: 'Your receipt', HtmlBody: '<p>Thank you for your order.</p>', TextBody: 'Thank you for your order.', Tag: 'receipt' });

// --- 2. accepting ---------------------------------------------------------------------------------------------
const autocannonBin = join(createRequire(import.meta.url).resolve('autocannon/package.json'), '..', 'autocannon.js');
const bodyFile = join(dir, 'email.json');
writeFileSync(bodyFile, JSON.stringify(message(1)));
function cannon(url: string, seconds: number): Promise<{ rps: number; non2xx: number }> {
  const args = [autocannonBin, '-j', '-c', '50', '-d', String(seconds), '-m', 'POST', '-i', bodyFile, '-H', 'content-type=application/json', '-H', `x-service-server-token=${TOKEN}`, url];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}`));
      const r = JSON.parse(out) as { requests: { average: number }; non2xx: number; errors: number };
      resolve({ rps: r.requests.average, non2xx: r.non2xx + r.errors });
    });
  });
}
async function acceptRun(on: boolean): Promise<{ rps: number; cpuUs: number }> {
  const ctx = await service(on);
  const app = await buildApp(ctx);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/email`;
  await cannon(url, 1); // warm-up
  const cpu0 = process.cpuUsage();
  const r = await cannon(url, SECONDS);
  const cpu = process.cpuUsage(cpu0);
  if (r.non2xx) throw new Error(`/email: ${r.non2xx} failed requests`);
  await app.close();
  await ctx.close();
  return { rps: r.rps, cpuUs: (cpu.user + cpu.system) / (r.rps * SECONDS) };
}
const bare = Fastify({ logger: false });
bare.post('/bare', async () => ({ To: 'to@example.net', SubmittedAt: '2026-01-01T00:00:00.000+00:00', MessageID: '00000000-0000-4000-8000-000000000000', ErrorCode: 0, Message: 'OK' }));
await bare.listen({ host: '127.0.0.1', port: 0 });
const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/bare`;
await cannon(bareUrl, 1);
const ceiling = await cannon(bareUrl, SECONDS);
const acceptOn: Array<{ rps: number; cpuUs: number }> = [];
const acceptOff: Array<{ rps: number; cpuUs: number }> = [];
for (let i = 0; i < ROUNDS; i++) {
  acceptOn.push(await acceptRun(true));
  acceptOff.push(await acceptRun(false));
}
await bare.close();

// --- 3. delivering ---------------------------------------------------------------------------------------------
const sink = fork(new URL('./sink-process.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const sinkPort = await new Promise<number>((resolve) => sink.once('message', (x: any) => resolve(x.port)));
const ask = (what: string) => new Promise<{ count: number }>((resolve) => (sink.once('message', (x: any) => resolve(x)), sink.send(what)));
async function deliverRun(on: boolean): Promise<{ rate: number; cpuMs: number }> {
  const ctx = await service(on, sinkPort);
  const server = await ctx.db.selectFrom('servers').select(['id', 'account_id']).executeTakeFirstOrThrow();
  const auth = { accountId: server.account_id, serverId: server.id, testMode: false };
  for (let i = 0; i < N; i += 500) await acceptMessages(ctx, auth, Array.from({ length: Math.min(500, N - i) }, (_, j) => message(i + j)));
  const stop = registerDelivery(ctx, deliveryParts(ctx));
  await ask('reset');
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  ctx.runner.start();
  while ((await ask('count')).count < N) await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await ctx.runner.stop();
  await stop();
  await ctx.close();
  return { rate: N / seconds, cpuMs: (cpu.user + cpu.system) / 1000 / N };
}
const deliverOn: Array<{ rate: number; cpuMs: number }> = [];
const deliverOff: Array<{ rate: number; cpuMs: number }> = [];
for (let i = 0; i < ROUNDS; i++) {
  deliverOn.push(await deliverRun(true));
  deliverOff.push(await deliverRun(false));
}
sink.kill();

// --- report ----------------------------------------------------------------------------------------------------
/** The run with the median of `k` (load on a shared machine moves single runs a lot). */
const median = <T extends Record<string, number>>(rs: T[], k: keyof T) => [...rs].sort((a, b) => a[k] - b[k])[Math.floor(rs.length / 2)];
const aOn = median(acceptOn, 'rps');
const aOff = median(acceptOff, 'rps');
const dOn = median(deliverOn, 'rate');
const dOff = median(deliverOff, 'rate');
console.log(`bench/observability (SQLite, ${SECONDS} s per HTTP run, ${fmt(N)} messages per delivery run; median of ${ROUNDS} alternating rounds)`);
console.log(`per call: histogram observe ${fmt(calls.observe)} ns, counter inc ${fmt(calls.inc)} ns, delivery log line ${fmt(calls.logLine)} ns written / ${fmt(calls.logFiltered)} ns filtered at warn`);
console.log(`bare Fastify route (ceiling): ${fmt(ceiling.rps)} req/s`);
console.log(`POST /email accepted: ${fmt(aOn.rps)} msg/s metrics+logs on (${fmt(aOn.cpuUs)} µs CPU/msg), ${fmt(aOff.rps)} msg/s off (${fmt(aOff.cpuUs)} µs CPU/msg); runs: on ${acceptOn.map((r) => fmt(r.rps)).join(', ')}, off ${acceptOff.map((r) => fmt(r.rps)).join(', ')}`);
console.log(`delivered to the sink: ${fmt(dOn.rate)} msg/s on (${dOn.cpuMs.toFixed(2)} CPU ms/msg), ${fmt(dOff.rate)} msg/s off (${dOff.cpuMs.toFixed(2)} CPU ms/msg); runs: on ${deliverOn.map((r) => fmt(r.rate)).join(', ')}, off ${deliverOff.map((r) => fmt(r.rate)).join(', ')}`);
// What the instrumentation costs per message on each path, from the per-call figures: accepting observes one
// histogram and increments one counter; a delivery increments one counter, observes one histogram and writes
// one line per recipient.
const acceptNs = calls.observe + calls.inc;
const deliverNs = calls.observe + calls.inc + calls.logLine;
console.log(`instrumentation per message: accept ${fmt(acceptNs)} ns = ${((acceptNs / 1000 / aOn.cpuUs) * 100).toFixed(2)}% of its CPU; delivery ${fmt(deliverNs)} ns = ${((deliverNs / 1e6 / dOn.cpuMs) * 100).toFixed(2)}% of its CPU`);
console.log(`load average: ${load()} on ${cpus().length} CPUs (other work on the machine lowers every figure; compare within this run)`);
rmSync(dir, { recursive: true, force: true });
