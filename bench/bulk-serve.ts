// bench/bulk-serve: a 100,000-recipient bulk request to `mailroom serve` as a user runs it (the built CLI,
// one process, its embedded SQLite), from the POST to the last message at a loopback SMTP sink, with the
// service process's own memory read from /proc (VmRSS sampled, VmHWM its peak): issue 25's "RSS during it"
// without the benchmark's request bodies in the same heap (bench/bulk.ts runs in-process).
//   npm run bench:bulk-serve        (builds first; BULK_RECIPIENTS=100000, BULK_ATTACHMENT_MB=0)
// Printed: the idle service's RSS (the floor: what mailroom costs doing nothing), the time to the 200, to
// Status "Completed" (every message compiled and handed off) and to the sink's last 250, and the peak RSS.
import { spawn, fork } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { seedSender } from './bench-db.js';
import { bulkRequestBody } from './bulk-request.js';
import { createContext } from '../src/context.js';

const N = Number(process.env.BULK_RECIPIENTS ?? 100_000);
const ATTACHMENT_MB = Number(process.env.BULK_ATTACHMENT_MB ?? 0);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'bench-server-token-000000000000001';
const ACCOUNT_TOKEN = 'bench-account-token-00000000000001';
const SECRET = 'bench-secret-key-bench-secret-key-0123456789';
const FROM = 'sender@bench.example';
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
if (!existsSync(join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: npm run build (npm run bench:bulk-serve does)');

const sinkProc = fork(new URL('./sink-process.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const sinkPort = await new Promise<number>((resolve) => sinkProc.once('message', (m: any) => resolve(m.port)));
const sinkCount = () =>
  new Promise<number>((resolve) => {
    sinkProc.once('message', (m: any) => resolve(m.count));
    sinkProc.send('count');
  });

// The database as `mailroom serve` would find it after a sender was confirmed.
const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-bulk-serve-'));
const env = {
  MAILROOM_DATABASE_URL: join(dir, 'mailroom.db'),
  MAILROOM_SERVER_TOKEN: TOKEN,
  MAILROOM_ACCOUNT_TOKEN: ACCOUNT_TOKEN,
  MAILROOM_SECRET_KEY: SECRET,
  MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sinkPort}`,
  MAILROOM_PORT: '0',
  MAILROOM_INBOUND_SMTP_PORT: '0',
  MAILROOM_SUBMISSION_PORT: 'off',
  MAILROOM_LOG_LEVEL: 'info',
};
{
  const config = loadConfig(env);
  const ctx = createContext(config);
  await seedSender(ctx, config, FROM);
  await ctx.close();
}

const child = spawn(process.execPath, ['dist/cli.js', 'serve'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
let log = '';
child.stdout.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-100_000)));
const deadline = Date.now() + 60_000;
while (!log.includes('mailroom listening')) {
  if (child.exitCode !== null || Date.now() > deadline) throw new Error(`mailroom serve did not start:\n${log}`);
  await new Promise((r) => setTimeout(r, 50));
}
const url = (JSON.parse(log.split('\n').find((l) => l.includes('mailroom listening'))!) as { url: string }).url;
const status = (key: 'VmRSS' | 'VmHWM') => {
  const m = new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
};
// Idle for a second after the start (first-start tasks done): the service's floor.
await new Promise((r) => setTimeout(r, 1000));
const idle = status('VmRSS');
let peak = idle;
const sampler = setInterval(() => (peak = Math.max(peak, status('VmRSS'))), 50);

const body = bulkRequestBody(FROM, N, ATTACHMENT_MB * 1024 * 1024);
const headers = { 'content-type': 'application/json', accept: 'application/json', 'x-service-server-token': TOKEN };
const t0 = performance.now();
const res = await fetch(`${url}/email/bulk`, { method: 'POST', body, headers });
const accepted = (await res.json()) as { Id: string; Status: string };
const acceptMs = performance.now() - t0;
if (res.status !== 200) throw new Error(`POST /email/bulk: ${res.status} ${JSON.stringify(accepted)}`);
const peakAccept = peak;

let completedMs = NaN;
let deliveredMs = NaN;
const until = Date.now() + 3_600_000;
for (;;) {
  if (Number.isNaN(completedMs)) {
    const s = (await (await fetch(`${url}/email/bulk/${accepted.Id}`, { headers })).json()) as { Status: string; PercentageCompleted: number };
    if (s.Status === 'Completed' || s.Status === 'Failed') completedMs = performance.now() - t0;
    if (s.Status === 'Failed') throw new Error(`the bulk request failed: ${JSON.stringify(s)}`);
  }
  if ((await sinkCount()) >= N) {
    deliveredMs = performance.now() - t0;
    if (!Number.isNaN(completedMs)) break;
  }
  if (Date.now() > until) throw new Error('not delivered within an hour');
  await new Promise((r) => setTimeout(r, 100));
}
clearInterval(sampler);
const hwm = status('VmHWM');
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
sinkProc.kill();
rmSync(dir, { recursive: true, force: true });

console.log(`bench/bulk-serve: ${fmt(N)} recipients (${mb(body.length)} of JSON${ATTACHMENT_MB ? `, a ${ATTACHMENT_MB} MB attachment` : ''}) to \`mailroom serve\` (dist/cli.js, SQLite), delivered to a loopback sink`);
console.log('| | figure | ceiling / context |\n|---|---|---|');
console.log(`| time to the 200 | ${fmt(acceptMs)} ms | |`);
console.log(`| time to Status Completed (every message compiled and handed off) | ${(completedMs / 1000).toFixed(1)} s (${fmt(N / (completedMs / 1000))} msg/s from the POST) | |`);
console.log(`| time to the sink's last 250 | ${(deliveredMs / 1000).toFixed(1)} s (${fmt(N / (deliveredMs / 1000))} msg/s from the POST) | |`);
console.log(`| service RSS, peak (VmHWM) | ${mb(hwm)} (sampled peak: accepting ${mb(peakAccept)}, overall ${mb(peak)}) | idle service: ${mb(idle)} |`);
console.log(`load average: ${loadavg().map((n) => n.toFixed(1)).join(' ')} on ${cpus().length} CPUs`);
