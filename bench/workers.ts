// bench/workers: delivered messages per second with 1, 2 and 4 worker processes (`mailroom serve --role
// worker`) beside one api process, on PostgreSQL, delivering DKIM-signed mail to a loopback SMTP sink; with
// PostgreSQL's CPU, WAL bytes and row writes per accepted and per delivered message, so that the capacity
// model of docs/scaling.md can be checked on another machine.
//   npm run bench:workers                 (BENCH_MESSAGES=3000, BENCH_WORKERS=1,2,4, BENCH_SQLITE=1)
// Each run: a fresh schema; the api process accepts the messages through POST /email/batch (workers not yet
// started); then the workers start and deliver them all. Each delivery run is cut at 55 s.
// Beside it, in the same run, the ceiling: the raw rate of the same sink fed by nodemailer's pooled transport.
// PostgreSQL CPU is read from /proc/<pid>/stat of this run's backends (found by application_name in
// pg_stat_activity), sampled every 250 ms; WAL bytes are pg_current_wal_lsn() differences, which count the
// whole cluster: on a shared server they include other clients' writes. With BENCH_SQLITE=1 the same is
// measured on SQLite with one api and one worker process: file growth and bytes written (/proc/<pid>/io).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';

const N = Number(process.env.BENCH_MESSAGES ?? 3000);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);
const PG_URL = process.env.MAILROOM_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUN_LIMIT_MS = 55_000;
const FROM = 'sender@bench.example';
const SECRET = 'bench-secret-key-bench-secret-key-0123456789';
const SERVER_TOKEN = 'bench-server-token-000000000000001';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = join(ROOT, 'node_modules/tsx/dist/esm/index.mjs');
const CLI = join(ROOT, 'src/cli.ts');
const TICK_MS = 1000 / 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on Linux

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicB64 = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

// --- measuring -----------------------------------------------------------------------------------------------
/** CPU milliseconds (user + system) a process has used; 0 when it is gone. */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** Bytes a process of ours caused to be written to storage (/proc/<pid>/io write_bytes). */
function writeBytesOf(pid: number): number {
  try {
    return Number(/write_bytes: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** CPU of the PostgreSQL backends serving one application_name, sampled so that exited backends still count. */
class BackendCpu {
  private last = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  constructor(
    private readonly admin: pg.Client,
    private readonly app: string,
  ) {}
  async sample(): Promise<void> {
    const { rows } = await this.admin.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [this.app]);
    for (const { pid } of rows) {
      const ms = cpuMsOf(pid);
      if (ms > 0) this.last.set(pid, ms);
    }
  }
  start(): void {
    this.timer = setInterval(() => void this.sample().catch(() => {}), 250);
  }
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sample();
  }
  total(): number {
    let t = 0;
    for (const v of this.last.values()) t += v;
    return t;
  }
}

const walLsn = async (c: pg.Client) => BigInt((await c.query<{ b: string }>(`select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint::text as b`)).rows[0]!.b);

async function rowCounts(c: pg.Client, schema: string): Promise<number> {
  const { rows } = await c.query<{ t: string }>(`select tablename as t from pg_tables where schemaname = $1`, [schema]);
  let n = 0;
  for (const { t } of rows) n += Number((await c.query(`select count(*)::int as n from ${schema}."${t}"`)).rows[0].n);
  return n;
}

async function rowWrites(c: pg.Client, schema: string): Promise<number> {
  await c.query('select pg_stat_clear_snapshot()');
  const { rows } = await c.query<{ n: string }>(`select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::text as n from pg_stat_user_tables where schemaname = $1`, [schema]);
  return Number(rows[0]!.n);
}

// --- processes ------------------------------------------------------------------------------------------------
async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

function startMailroom(role: 'api' | 'worker', env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', TSX, CLI, 'serve', '--role', role], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', NODE_NO_WARNINGS: '1', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

async function stopProcess(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const done = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  const t = setTimeout(() => p.kill('SIGKILL'), 20_000);
  await done;
  clearTimeout(t);
}

async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// --- the sink -----------------------------------------------------------------------------------------------
const sinkProc = fork(new URL('./sink-process.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const sinkPort = await new Promise<number>((resolve) => sinkProc.once('message', (m: any) => resolve(m.port)));
const ask = (what: 'count' | 'reset') =>
  new Promise<{ count: number; bytes: number; cpuMs: number }>((resolve) => {
    sinkProc.once('message', (m: any) => resolve(m));
    sinkProc.send(what);
  });

const message = (i: number) => ({
  From: `Bench <${FROM}>`,
  To: `rcpt${i}@d${i % 100}.example`,
  Subject: `Your receipt #${i}`,
  HtmlBody: '<html><body><p>Thank you for your order.</p><a href="https://example.net/o/1">See it</a></body></html>',
  TextBody: 'Thank you for your order. See it: https://example.net/o/1',
  Tag: 'receipt',
});

async function rawSinkRate(n: number): Promise<number> {
  const transport = nodemailer.createTransport({ pool: true, host: '127.0.0.1', port: sinkPort, secure: false, ignoreTLS: true, maxConnections: 64, maxMessages: Infinity });
  await ask('reset');
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 128 }, async () => {
      while (next < n) {
        const m = message(next++);
        await transport.sendMail({ from: m.From, to: m.To, subject: m.Subject, html: m.HtmlBody, text: m.TextBody });
      }
    }),
  );
  transport.close();
  return n / ((performance.now() - t0) / 1000);
}

// --- one run ------------------------------------------------------------------------------------------------
interface RunResult {
  workers: number;
  delivered: number;
  rate: number;
  acceptRate: number;
  pgCpuAccept: number;
  pgCpuDeliver: number;
  walAccept: number;
  walDeliver: number;
  rowsAdded: number;
  rowWrites: number;
  apiCpu: number;
  workerCpu: number;
}

/** Inserts the DKIM key and the confirmed sender, as `mailroom domain add` + DNS verification would. */
async function addSigner(env: Record<string, string>): Promise<void> {
  const ctx = createContext(loadConfig(env), { secretKey: SECRET });
  try {
    const account = await ctx.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
    const now = Date.now();
    const domain = await ctx.db.insertInto('domains').values({ account_id: account.id, name: 'bench.example', dkim_verified: 1, created_at: now }).returning('id').executeTakeFirstOrThrow();
    await ctx.db.insertInto('sender_signatures').values({ account_id: account.id, domain_id: domain.id, email: FROM, name: 'Bench', confirmed: 1, created_at: now }).execute();
    await ctx.db
      .insertInto('dkim_keys')
      .values({ domain_id: domain.id, selector: 'mr1', private_key: ctx.secrets.seal(privatePem), public_key: publicB64, bits: 2048, state: 'active', created_at: now, activated_at: now })
      .execute();
  } finally {
    await ctx.close();
  }
}

async function acceptAll(base: string): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 2 }, async () => {
      while (next < N) {
        const from = next;
        next += 500;
        const body = JSON.stringify(Array.from({ length: Math.min(500, N - from) }, (_, j) => message(from + j)));
        const r = await fetch(`${base}/email/batch`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', 'x-service-server-token': SERVER_TOKEN }, body });
        const out = (await r.json()) as Array<{ ErrorCode: number; Message: string }>;
        const bad = Array.isArray(out) ? out.find((o) => o.ErrorCode !== 0) : out;
        if (r.status !== 200 || bad) throw new Error(`not accepted: ${r.status} ${JSON.stringify(bad)}`);
      }
    }),
  );
  return N / ((performance.now() - t0) / 1000);
}

async function waitDelivered(onFirst: () => void = () => {}): Promise<{ delivered: number; rate: number }> {
  const t0 = performance.now();
  let first = 0;
  let firstAt = 0;
  for (;;) {
    const { count } = await ask('count');
    const now = performance.now();
    if (count > 0 && firstAt === 0) {
      [first, firstAt] = [count, now];
      onFirst();
    }
    if (count >= N || now - t0 > RUN_LIMIT_MS) {
      // Measured from the first delivery: worker start-up (tsx compiling the sources) is not delivery.
      const rate = firstAt && now > firstAt ? (count - first) / ((now - firstAt) / 1000) : 0;
      return { delivered: count - first, rate };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function runPostgres(workers: number, admin: pg.Client): Promise<RunResult> {
  const schema = `bench_w_${randomBytes(4).toString('hex')}`;
  const app = `mailroom-bench-${schema}`;
  await admin.query(`create schema ${schema}`);
  const url = `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}&application_name=${app}`;
  const port = await freePort();
  const env = {
    MAILROOM_DATABASE_URL: url,
    MAILROOM_SECRET_KEY: SECRET,
    MAILROOM_SERVER_TOKEN: SERVER_TOKEN,
    MAILROOM_ACCOUNT_TOKEN: 'bench-account-token-00000000000001',
    MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sinkPort}`,
    MAILROOM_LOG_LEVEL: 'warn',
    MAILROOM_INBOUND_SMTP_PORT: '0',
    MAILROOM_SUBMISSION_PORT: 'off',
  };
  const procs: ChildProcess[] = [];
  const cpu = new BackendCpu(admin, app);
  try {
    const api = startMailroom('api', { ...env, MAILROOM_PORT: String(port) });
    procs.push(api);
    const base = `http://127.0.0.1:${port}`;
    await until('the api process', async () => (await fetch(`${base}/readyz`)).ok);
    await addSigner(env);
    await cpu.sample();
    const [cpu0, wal0, rows0, api0] = [cpu.total(), await walLsn(admin), await rowCounts(admin, schema), cpuMsOf(api.pid!)];
    cpu.start();
    const acceptRate = await acceptAll(base);
    await cpu.stop();
    const [cpu1, wal1, rows1, api1] = [cpu.total(), await walLsn(admin), await rowCounts(admin, schema), cpuMsOf(api.pid!)];

    await ask('reset');
    const workerProcs = Array.from({ length: workers }, () => startMailroom('worker', { ...env, MAILROOM_PORT: '0' }));
    procs.push(...workerProcs);
    // Worker CPU counted from the first delivery on: start-up (tsx compiling the sources) is not delivery.
    let w0 = workerProcs.map(() => 0);
    cpu.start();
    const { delivered, rate } = await waitDelivered(() => (w0 = workerProcs.map((p) => cpuMsOf(p.pid!))));
    await cpu.stop();
    const [cpu2, wal2] = [cpu.total(), await walLsn(admin)];
    const workerCpu = workerProcs.reduce((s, p, i) => s + cpuMsOf(p.pid!) - w0[i]!, 0);
    for (const p of procs) await stopProcess(p);
    const writes = await until('statistics flushed', async () => {
      const n = await rowWrites(admin, schema);
      return n > 0 ? n : null;
    });
    return {
      workers,
      delivered,
      rate,
      acceptRate,
      pgCpuAccept: (cpu1 - cpu0) / N,
      pgCpuDeliver: (cpu2 - cpu1) / Math.max(1, delivered),
      walAccept: Number(wal1 - wal0) / N,
      walDeliver: Number(wal2 - wal1) / Math.max(1, delivered),
      rowsAdded: (rows1 - rows0) / N,
      rowWrites: writes / N,
      apiCpu: (api1 - api0) / N,
      workerCpu: workerCpu / Math.max(1, delivered),
    };
  } finally {
    for (const p of procs) await stopProcess(p);
    await admin.query(`drop schema ${schema} cascade`);
  }
}

/** SQLite: one api and one worker process on one file; file growth and bytes written per message. */
async function runSqlite(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-workers-'));
  const file = join(dir, 'mailroom.db');
  const size = () => readdirSync(dir).reduce((s, f) => s + (f.startsWith('mailroom.db') ? statSync(join(dir, f)).size : 0), 0);
  const port = await freePort();
  const env = {
    MAILROOM_DATABASE_URL: file,
    MAILROOM_SECRET_KEY: SECRET,
    MAILROOM_SERVER_TOKEN: SERVER_TOKEN,
    MAILROOM_ACCOUNT_TOKEN: 'bench-account-token-00000000000001',
    MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sinkPort}`,
    MAILROOM_LOG_LEVEL: 'warn',
    MAILROOM_INBOUND_SMTP_PORT: '0',
    MAILROOM_SUBMISSION_PORT: 'off',
  };
  const procs: ChildProcess[] = [];
  try {
    const api = startMailroom('api', { ...env, MAILROOM_PORT: String(port) });
    procs.push(api);
    const base = `http://127.0.0.1:${port}`;
    await until('the api process', async () => (await fetch(`${base}/readyz`)).ok);
    await addSigner(env);
    const [s0, io0, c0] = [size(), writeBytesOf(api.pid!), cpuMsOf(api.pid!)];
    const acceptRate = await acceptAll(base);
    const [s1, io1, c1] = [size(), writeBytesOf(api.pid!), cpuMsOf(api.pid!)];
    await ask('reset');
    const worker = startMailroom('worker', { ...env, MAILROOM_PORT: '0' });
    procs.push(worker);
    let [sw, iow, cw] = [s1, 0, 0];
    const { delivered, rate } = await waitDelivered(() => ([sw, iow, cw] = [size(), writeBytesOf(worker.pid!), cpuMsOf(worker.pid!)]));
    const [s2, io2, c2] = [size() - sw + s1, writeBytesOf(worker.pid!) - iow, cpuMsOf(worker.pid!) - cw];
    const kb = (b: number) => (b / 1024).toFixed(1);
    return [
      `SQLite accept: ${fmt(acceptRate)} msg/s; per message: file growth ${kb((s1 - s0) / N)} KiB, written ${kb((io1 - io0) / N)} KiB, api CPU ${((c1 - c0) / N).toFixed(2)} ms`,
      `SQLite deliver (1 worker): ${fmt(rate)} msg/s (${delivered}/${N}); per message: file growth ${kb((s2 - s1) / Math.max(1, delivered))} KiB, written ${kb(io2 / Math.max(1, delivered))} KiB, worker CPU ${(c2 / Math.max(1, delivered)).toFixed(2)} ms`,
    ];
  } finally {
    for (const p of procs) await stopProcess(p);
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- main ---------------------------------------------------------------------------------------------------
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
console.log(`bench/workers: ${fmt(N)} messages, 1 recipient each over 100 domains, DKIM rsa-sha256 2048-bit; load average at start: ${load()}`);
await rawSinkRate(300); // warm-up
const ceiling = await rawSinkRate(N);
console.log(`ceiling: nodemailer pool -> sink, unsigned, same run: ${fmt(ceiling)} msg/s`);

const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
let pgOk = true;
await admin.connect().catch((err: Error) => {
  pgOk = false;
  console.log(`PostgreSQL skipped: ${err.message}`);
});
if (pgOk) {
  console.log('workers  delivered   msg/s | PG CPU ms/msg accept deliver | WAL B/msg accept deliver | rows added/msg  row writes/msg | api CPU ms/acc  worker CPU ms/del | accept msg/s');
  for (const w of WORKERS) {
    const r = await runPostgres(w, admin);
    console.log(
      `${String(w).padStart(7)}  ${`${r.delivered}/${N}`.padStart(9)} ${fmt(r.rate).padStart(7)} | ${r.pgCpuAccept.toFixed(2).padStart(20)} ${r.pgCpuDeliver.toFixed(2).padStart(7)} | ${fmt(r.walAccept).padStart(17)} ${fmt(r.walDeliver).padStart(7)} | ${r.rowsAdded.toFixed(1).padStart(14)} ${r.rowWrites.toFixed(1).padStart(15)} | ${r.apiCpu.toFixed(2).padStart(14)} ${r.workerCpu.toFixed(2).padStart(18)} | ${fmt(r.acceptRate).padStart(12)}   (load ${load()})`,
    );
  }
  await admin.end();
}
if (process.env.BENCH_SQLITE !== '0') for (const line of await runSqlite()) console.log(line);
console.log(`load average at the end: ${load()} (2-core machine shared with other engineers: indicative figures)`);
sinkProc.kill();
process.exit(0);
