// bench/send: throughput of the accept path against its ceiling, measured in one run on this machine.
//   npm run bench:send            (BENCH_SECONDS=10 by default, BENCH_CONNECTIONS=50, BENCH_DB=sqlite,postgres)
// The service runs in this process on a fresh SQLite file (synchronous=FULL) on the disk of os.tmpdir(), then
// on a fresh schema of the local PostgreSQL (issue 28: PostgreSQL keeps 0.85x of SQLite's figure);
// the load comes from autocannon in a child process, so that the generator does not share the server's
// event loop. The ceiling is a bare Fastify route in this process that receives the same POST body (parsed
// by Fastify's JSON parser) and answers a fixed JSON object.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { buildApp } from '../src/http/app.js';
import { canonicalKeys, compileKeyMap } from '../src/http/body-keys.js';
import { BatchBodySchema, OutgoingMessageSchema } from '../src/http/routes/email/schemas.js';
import { type BenchDialect, benchDatabase, benchDialects, seedSender } from './bench-db.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TOKEN = 'bench-server-token-000000000000001';
const FROM = 'sender@bench.example';

interface Result {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

const autocannonBin = join(createRequire(import.meta.url).resolve('autocannon/package.json'), '..', 'autocannon.js');

function load(url: string, bodyFile: string, connections: number, seconds: number): Promise<Result> {
  const args = [autocannonBin, '-j', '-c', String(connections), '-d', String(seconds), '-m', 'POST', '-i', bodyFile];
  for (const h of ['content-type=application/json', `x-service-server-token=${TOKEN}`]) args.push('-H', h);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Result) : reject(new Error(`autocannon exited with ${code}`))));
  });
}

async function measure(name: string, url: string, body: string, connections: number): Promise<Result & { cpuPerRequest: number; loopPerRequest: number; loopUtilization: number }> {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, body);
  await load(url, file, connections, Math.min(2, SECONDS)); // warm-up (JIT, page cache)
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  const r = await load(url, file, connections, SECONDS);
  const used = process.cpuUsage(cpu);
  const loop = performance.eventLoopUtilization(elu);
  if (r.non2xx || r.errors || r.timeouts) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors, ${r.timeouts} timeouts`);
  // CPU time of this (the server's) process per request: a figure that other load on the machine moves less
  // than requests per second.
  // The event loop's busy time per request (the main thread alone; the process's CPU above includes the
  // writer thread and libuv's pool).
  return { ...r, cpuPerRequest: (used.user + used.system) / r.requests.total, loopPerRequest: (loop.active * 1000) / r.requests.total, loopUtilization: loop.utilization };
}

const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-'));
const message = (i: number) => ({ From: `Bench <${FROM}>`, To: `rcpt${i}@example.net`, Subject: 'Your receipt', HtmlBody: '<html><body><p>Thank you for your order.</p><a href="https://example.net/o/1">See it</a></body></html>', Tag: 'receipt' });
const single = JSON.stringify(message(1));
const batch = JSON.stringify(Array.from({ length: 500 }, (_, i) => message(i)));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (n: number) => `${Math.round(n * 100)}%`;
type Measured = Awaited<ReturnType<typeof measure>>;

// BENCH_ONLY=email (or bare, batch; comma-separated) skips the other runs, e.g. for a CPU profile of one path.
const only = new Set((process.env.BENCH_ONLY ?? 'bare,email,batch').split(','));
const skipped: Measured = { requests: { average: NaN, total: 0 }, latency: { p50: NaN, p99: NaN }, non2xx: 0, errors: 0, timeouts: 0, cpuPerRequest: NaN, loopPerRequest: NaN, loopUtilization: NaN };

const bare = Fastify({ logger: false });
bare.post('/bare', async () => ({ To: 'to@example.net', SubmittedAt: '2026-01-01T00:00:00.000+00:00', MessageID: '00000000-0000-4000-8000-000000000000', ErrorCode: 0, Message: 'OK' }));
await bare.listen({ host: '127.0.0.1', port: 0 });
const barePort = (bare.server.address() as { port: number }).port;
console.log(`bench/send: ${SECONDS}s per run, ${CONNECTIONS} connections`);
const ceiling = only.has('bare') ? await measure('bare', `http://127.0.0.1:${barePort}/bare`, single, CONNECTIONS) : skipped;
await bare.close();
const batchConnections = Math.max(1, Math.min(CONNECTIONS, 4));

interface DialectResult {
  dialect: BenchDialect;
  email: Measured;
  batched: Measured;
  note: string;
}

async function runMailroom(dialect: BenchDialect): Promise<DialectResult | null> {
  const database = await benchDatabase(dialect, 'send');
  if (!database) return null;
  const config = loadConfig({
    MAILROOM_DATABASE_URL: database.url,
    MAILROOM_PORT: '0',
    MAILROOM_LOG_LEVEL: 'warn',
    MAILROOM_SERVER_TOKEN: TOKEN,
    MAILROOM_ACCOUNT_TOKEN: 'bench-account-token-00000000000001',
    MAILROOM_SECRET_KEY: 'bench-secret-key-bench-secret-key-0123456789',
  });
  const ctx = createContext(config, { dbOptions: database.dbOptions });
  try {
    await seedSender(ctx, config, FROM);
    const app = await buildApp(ctx);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    const count = async () => Number((await ctx.db.selectFrom('messages').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    let how = 'PostgreSQL (synchronous_commit as the server sets it)';
    if (dialect === 'sqlite') {
      const pragma = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(ctx.db);
      how = `SQLite synchronous=${['OFF', 'NORMAL', 'FULL', 'EXTRA'][pragma.rows[0].synchronous]}`;
    }
    const before = await count();
    const email = only.has('email') ? await measure(`email-${dialect}`, `http://127.0.0.1:${port}/email`, single, CONNECTIONS) : skipped;
    const afterSingle = await count();
    const groups = { ...ctx.sendBatcher.stats };
    const batched = only.has('batch') ? await measure(`batch-${dialect}`, `http://127.0.0.1:${port}/email/batch`, batch, batchConnections) : skipped;
    const afterBatch = await count();
    await app.close();
    const note =
      `${how}; group commit ${(groups.requests / groups.transactions).toFixed(1)} /email requests per transaction; ` +
      `stored ${fmt(afterSingle - before)} messages from /email runs, ${fmt(afterBatch - afterSingle)} from /email/batch runs (warm-ups included)`;
    return { dialect, email, batched, note };
  } finally {
    await ctx.close();
    await database.drop();
  }
}

const results: DialectResult[] = [];
for (const d of benchDialects()) {
  const r = await runMailroom(d);
  if (r) results.push(r);
  else console.log(`${d}: skipped (PostgreSQL not reachable at the bench URL)`);
}

const rows = [['bare Fastify route (ceiling)', `${fmt(ceiling.requests.average)} req/s`, `${ceiling.latency.p50} ms`, `${ceiling.latency.p99} ms`, `${fmt(ceiling.cpuPerRequest)} µs/req`, `${fmt(ceiling.loopPerRequest)} µs/req (${pct(ceiling.loopUtilization)})`]];
for (const { dialect, email, batched } of results) {
  rows.push([`POST /email (1 recipient), ${dialect}`, `${fmt(email.requests.average)} req/s`, `${email.latency.p50} ms`, `${email.latency.p99} ms`, `${fmt(email.cpuPerRequest)} µs/req`, `${fmt(email.loopPerRequest)} µs/req (${pct(email.loopUtilization)})`]);
  rows.push([`POST /email/batch (500 msgs, ${batchConnections} conn), ${dialect}`, `${fmt(batched.requests.average * 500)} msg/s`, `${batched.latency.p50} ms`, `${batched.latency.p99} ms`, `${fmt(batched.cpuPerRequest / 500)} µs/msg`, `${fmt(batched.loopPerRequest / 500)} µs/msg (${pct(batched.loopUtilization)})`]);
}
console.log(['', 'throughput', 'p50', 'p99', 'server CPU (all threads)', 'event loop busy (utilization)'].join(' | '));
for (const r of rows) console.log(r.join(' | '));
for (const r of results) console.log(`${r.dialect}: ${r.note}`);
const avg = loadavg().map((n) => n.toFixed(1)).join(' ');
console.log(`load average: ${avg} on ${cpus().length} CPUs (other work on the machine lowers every figure)`);
for (const { dialect, email, batched } of results) {
  const ratio = email.requests.average / ceiling.requests.average;
  console.log(`${dialect}: /email / bare = ${ratio.toFixed(2)} (target >= 0.50); by server CPU per request: ${(ceiling.cpuPerRequest / email.cpuPerRequest).toFixed(2)}`);
  console.log(`${dialect}: /email/batch = ${fmt(batched.requests.average * 500)} messages/s (target >= 20,000); ${((batched.requests.average * 500) / ceiling.requests.average).toFixed(2)}x the bare route's requests/s`);
}
// The body-key reader's own share (http/body-keys.ts, which every /email and batch request passes through):
// its CPU per body, timed here in process on the bodies the runs above sent (parsed beforehand), as sent and
// with every key in camelCase (the renaming path, the PHP client's), against /email's CPU per request above.
function keysCost(schema: unknown, text: string, rounds: number): number {
  const node = compileKeyMap(schema)!;
  const bodies = Array.from({ length: rounds }, () => JSON.parse(text) as unknown);
  const t = performance.now();
  for (const b of bodies) canonicalKeys(b, node);
  return ((performance.now() - t) * 1000) / rounds;
}
const camel = (text: string) => text.replace(/"([A-Z])([A-Za-z]*)":/g, (_m, a: string, rest: string) => `"${a.toLowerCase()}${rest}":`);
for (let warm = 0; warm < 3; warm++) keysCost(OutgoingMessageSchema, single, 2000);
const keys = {
  single: keysCost(OutgoingMessageSchema, single, 20000),
  singleCamel: keysCost(OutgoingMessageSchema, camel(single), 20000),
  batch: keysCost(BatchBodySchema, batch, 40) / 500,
  batchCamel: keysCost(BatchBodySchema, camel(batch), 40) / 500,
};
for (const { dialect, email, batched } of results) {
  const share = (us: number, of: number) => `${((100 * us) / of).toFixed(2)}%`;
  console.log(
    `${dialect}: body keys ${keys.single.toFixed(2)} µs per /email body as sent, ${keys.singleCamel.toFixed(2)} µs in camelCase ` +
      `(${share(keys.single, email.cpuPerRequest)} / ${share(keys.singleCamel, email.cpuPerRequest)} of /email's CPU per request; ceiling 3%); ` +
      `${keys.batch.toFixed(2)} / ${keys.batchCamel.toFixed(2)} µs per batch message (${share(keys.batch, batched.cpuPerRequest / 500)} / ${share(keys.batchCamel, batched.cpuPerRequest / 500)})`,
  );
}
const lite = results.find((r) => r.dialect === 'sqlite');
const post = results.find((r) => r.dialect === 'postgres');
if (lite && post) {
  console.log(
    `PostgreSQL / SQLite (target >= 0.85): /email ${(post.email.requests.average / lite.email.requests.average).toFixed(2)}, ` +
      `/email/batch ${(post.batched.requests.average / lite.batched.requests.average).toFixed(2)}`,
  );
}
rmSync(dir, { recursive: true, force: true });
