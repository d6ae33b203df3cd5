// bench/bulk: a 100,000-recipient POST /email/bulk against its ceilings, measured in one run on this machine.
//   npm run bench:bulk            (BULK_RECIPIENTS=100000 by default)
// The service runs in this process on a fresh SQLite file (synchronous=FULL) on the disk of os.tmpdir().
// Figures: the time to the 200 answer (the whole request parsed, validated and durably stored), the same with
// a 40 MB attachment (a payload near the 50 MB limit), the expansion rate (pages compiled into messages by
// the 'bulk-expand' jobs, run here one after another as one worker would), and the process's peak RSS.
// Then delivery: the first request's messages ('deliver-bulk' jobs, the worker's bulk slots) handed off to a
// loopback SMTP sink (bench/sink-process.ts, a child process), from the runner's start to the sink's last 250.
// Ceilings in the same run: a bare Fastify route receiving the same body, POST /email/batch (500 per call),
// and bench/deliver's path: BULK_DELIVER_CEILING (default 20,000) ordinary messages accepted as POST /email
// does, delivered by the 'deliver' queue to the same sink. BULK_DELIVER=0 leaves delivery out.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { expandPage } from '../src/domain/bulk/expand.js';
import { BULK_DELIVER_QUEUE, BULK_EXPAND_QUEUE } from '../src/domain/bulk/jobs.js';
import { registerBulk } from '../src/domain/bulk/register.js';
import { acceptMessages } from '../src/domain/accepting/accept.js';
import { registerDelivery } from '../src/domain/delivery/register.js';
import { deliveryParts } from '../src/worker.js';
import { loadConfig } from '../src/config.js';
import { seedSender } from './bench-db.js';
import { bulkRequestBody } from './bulk-request.js';
import { createContext } from '../src/context.js';
import { buildApp } from '../src/http/app.js';

const N = Number(process.env.BULK_RECIPIENTS ?? 100_000);
const DELIVER = process.env.BULK_DELIVER !== '0';
const CEILING_N = Number(process.env.BULK_DELIVER_CEILING ?? 20_000);
const DOMAINS = 100;

// The sink (as bench/deliver's): counts what it receives; a child process, off this process's event loop.
const sinkProc = fork(new URL('./sink-process.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const sinkPort = await new Promise<number>((resolve) => sinkProc.once('message', (m: any) => resolve(m.port)));
const ask = (what: string) =>
  new Promise<{ count: number }>((resolve) => {
    sinkProc.once('message', (m: any) => resolve(m));
    sinkProc.send(what);
  });
async function waitForSink(n: number, timeoutMs = 1_800_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await ask('count')).count >= n) return;
    if (Date.now() > deadline) throw new Error(`the sink got fewer than ${n} messages`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
const TOKEN = 'bench-server-token-000000000000001';
const FROM = 'sender@bench.example';

const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-'));
const config = loadConfig({
  MAILROOM_DATABASE_URL: join(dir, 'mailroom.db'),
  MAILROOM_PORT: '0',
  MAILROOM_LOG_LEVEL: 'warn',
  MAILROOM_SERVER_TOKEN: TOKEN,
  MAILROOM_ACCOUNT_TOKEN: 'bench-account-token-00000000000001',
  MAILROOM_SECRET_KEY: 'bench-secret-key-bench-secret-key-0123456789',
  MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sinkPort}`,
});
const ctx = createContext(config);
await seedSender(ctx, config, FROM);
const app = await buildApp(ctx);
await app.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
const bare = Fastify({ logger: false, bodyLimit: 60 * 1024 * 1024 });
bare.post('/bare', async () => ({ Id: '00000000-0000-4000-8000-000000000000', Status: 'Accepted', SubmittedAt: '2026-01-01T00:00:00.000+00:00' }));
await bare.listen({ host: '127.0.0.1', port: 0 });
const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/bare`;

let peakRss = 0;
const sample = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));
// Timers do not fire while a chain of SQLite calls (synchronous in better-sqlite3) keeps the loop in
// microtasks: the sampler also runs after each request and each page.
const sampler = setInterval(sample, 20);
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function post(url: string, body: string): Promise<{ ms: number; json: any }> {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-service-server-token': TOKEN } });
  const json = await res.json();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return { ms, json };
}

const request = (attachmentBytes: number) => bulkRequestBody(FROM, N, attachmentBytes);

// The request bodies are made and dropped phase by phase (and the heap collected between phases, with
// --expose-gc): the bench's own strings (9 + 49 MB, and their parsed forms in the service) would otherwise
// be counted in the service's RSS while it expands (the first run of 2026-11-26 counted them: 980 MB).
const gc = () => (globalThis as { gc?: () => void }).gc?.();
let plain: string | null = request(0);
let heavy: string | null = request(30 * 1024 * 1024); // 40 MB of base64
console.log(`bench/bulk: ${fmt(N)} recipients; request ${mb(plain.length)}, with attachment ${mb(heavy.length)}; SQLite at ${dir}`);

const bareTime = (await post(bareUrl, plain)).ms;
const bareHeavy = (await post(bareUrl, heavy)).ms;
gc();
const rssBefore = process.memoryUsage().rss;
peakRss = 0;
const accepted = await post(`${base}/email/bulk`, plain);
sample();
const acceptedHeavy = await post(`${base}/email/bulk`, heavy);
sample();
const peakAccept = peakRss;
plain = heavy = null;
gc();

// Ceiling of the message path: /email/batch, 500 messages a call, 20 calls one after another. Measured
// before the expansion: a keep-alive connection left idle through a long expansion is closed by the
// server's idle timeout, and fetch reused it at that moment (ECONNRESET).
const batch = JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ From: FROM, To: `b${i}@example.net`, Subject: 'News for you', HtmlBody: '<p>Hello</p>', MessageStream: 'broadcast' })));
const tb = performance.now();
for (let i = 0; i < 20; i++) await post(`${base}/email/batch`, batch);
const batchRate = (20 * 500) / ((performance.now() - tb) / 1000);
const rssBeforeExpand = process.memoryUsage().rss;

// Expansion: every page job, one after another (one worker's pace; a worker runs two at once).
const jobs = await ctx.db.selectFrom('jobs').selectAll().where('queue', '=', BULK_EXPAND_QUEUE).orderBy('id').execute();
peakRss = 0;
const t0 = performance.now();
let compiled = 0;
for (const job of jobs) {
  compiled += (await expandPage(ctx, job))?.compiled ?? 0;
  sample();
}
const expandMs = performance.now() - t0;
const peakExpand = peakRss;

// Delivery: the first request's N messages. The second's copies of a 30 MB file are left undelivered (their
// jobs removed): 100,000 of them would be terabytes through the sink.
let bulkDeliver = 0;
let plainDeliver = 0;
if (DELIVER) {
  const heavyMessages = ctx.db.selectFrom('messages').select('id').where('bulk_id', '=', acceptedHeavy.json.Id);
  await ctx.db.deleteFrom('jobs').where('queue', '=', BULK_DELIVER_QUEUE).where('message_id', 'in', heavyMessages).execute();
  const parts = deliveryParts(ctx);
  const stops = [registerDelivery(ctx, parts), registerBulk(ctx, parts)];
  await ask('reset');
  const td = performance.now();
  ctx.runner.start();
  await waitForSink(N);
  bulkDeliver = N / ((performance.now() - td) / 1000);
  await ctx.runner.stop();

  // bench/deliver's path in the same process, database and sink: ordinary messages, 'deliver' queue.
  const server = await ctx.db.selectFrom('servers').select(['id', 'account_id']).executeTakeFirstOrThrow();
  const auth = { accountId: server.account_id, serverId: server.id, testMode: false };
  for (let i = 0; i < CEILING_N; i += 500) {
    const list = Array.from({ length: Math.min(500, CEILING_N - i) }, (_, j) => ({ From: FROM, To: `t${i + j}@d${(i + j) % DOMAINS}.example`, Subject: 'Receipt', HtmlBody: '<p>Thanks</p>', TextBody: 'Thanks' }));
    const out = await acceptMessages(ctx, auth, list);
    if (out.some((o) => o.result.ErrorCode !== 0)) throw new Error('a ceiling message was not accepted');
  }
  await ask('reset');
  const tp = performance.now();
  ctx.runner.start();
  await waitForSink(CEILING_N);
  plainDeliver = CEILING_N / ((performance.now() - tp) / 1000);
  await ctx.runner.stop();
  for (const stop of stops) await stop();
}

clearInterval(sampler);

console.log(['', 'figure', 'ceiling in this run'].join(' | '));
console.log(['time to the 200 answer', `${fmt(accepted.ms)} ms`, `bare route, same body: ${fmt(bareTime)} ms`].join(' | '));
console.log(['time to the 200, 40 MB attachment', `${fmt(acceptedHeavy.ms)} ms`, `bare route, same body: ${fmt(bareHeavy)} ms`].join(' | '));
console.log(['expansion (one worker)', `${fmt((compiled / expandMs) * 1000)} msg/s (${fmt(compiled)} in ${fmt(expandMs)} ms)`, `/email/batch: ${fmt(batchRate)} msg/s`].join(' | '));
if (DELIVER) {
  const slots = `${Math.ceil(config.deliveryConcurrency / 2)} bulk slots of ${config.deliveryConcurrency}`;
  console.log(['delivery of the request to the loopback sink', `${fmt(bulkDeliver)} msg/s (${fmt(N)} messages; ${slots})`, `bench/deliver's path ('deliver' queue): ${fmt(plainDeliver)} msg/s (${fmt(CEILING_N)} messages)`].join(' | '));
}
console.log(['peak RSS', `accepting ${mb(peakAccept)}, expanding ${mb(peakExpand)}`, `before accepting: ${mb(rssBefore)}; before expanding (bodies dropped): ${mb(rssBeforeExpand)}`].join(' | '));
console.log(`load average: ${loadavg().map((n) => n.toFixed(1)).join(' ')} on ${cpus().length} CPUs (other work on the machine lowers every figure)`);
if (compiled !== 2 * N) throw new Error(`compiled ${compiled} messages, expected ${2 * N}`);

await app.close();
await bare.close();
await ctx.close();
rmSync(dir, { recursive: true, force: true });
sinkProc.kill();
