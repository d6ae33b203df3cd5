// bench/startup: how long `mailroom serve` on an empty SQLite database takes to answer /readyz (the built
// dist/, as `npm start` runs it), beside its ceiling of 1.5 s and the floor of the same machine in the same
// run: a bare `node -e` process and one that only imports the modules serve loads. Wall time to the first
// 200 and the process's CPU time by then (user + system, /proc), which a loaded machine inflates less.
//   npm run build && npm run bench:startup        (BENCH_RUNS, default 5; the median is printed)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/cli.js');
const CEILING_MS = 1500;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build first');

const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One start: wall and CPU ms until `ready` says so; the process is stopped after. */
async function once(args: string[], env: NodeJS.ProcessEnv, ready: (child: ReturnType<typeof spawn>) => Promise<void>): Promise<{ wall: number; cpu: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
  await ready(child);
  const r = { wall: performance.now() - t0, cpu: child.exitCode === null ? cpuMs(child.pid!) : 0 };
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  return r;
}

const exited = (child: ReturnType<typeof spawn>) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));

async function serveOnce(): Promise<{ wall: number; cpu: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-startup-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const env = { ...process.env, MAILROOM_PORT: String(port), MAILROOM_INBOUND_SMTP_PORT: '0', MAILROOM_SUBMISSION_PORT: 'off', MAILROOM_DATABASE_URL: join(dir, 'mailroom.db'), MAILROOM_LOG_LEVEL: 'warn' };
  try {
    return await once([CLI, 'serve'], env, async () => {
      for (;;) {
        try {
          if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return;
        } catch {
          // not listening yet
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Record<string, Array<{ wall: number; cpu: number }>> = { 'node -e ""': [], 'import serve\'s modules': [], 'serve, empty database': [] };
for (let i = 0; i < RUNS; i++) {
  rows['node -e ""']!.push(await once(['-e', ''], process.env, exited));
  rows["import serve's modules"]!.push(await once(['--input-type=module', '-e', `await import(${JSON.stringify(join(ROOT, 'dist/serve.js'))})`], process.env, exited));
  rows['serve, empty database']!.push(await serveOnce());
}
for (const [name, r] of Object.entries(rows)) {
  console.log(`${name.padEnd(26)} wall ${String(Math.round(median(r.map((x) => x.wall)))).padStart(6)} ms   CPU ${r.every((x) => x.cpu) ? `${median(r.map((x) => x.cpu))} ms` : '(exited)'}`);
}
const figure = median(rows['serve, empty database']!.map((x) => x.wall));
console.log(`\n/readyz after ${Math.round(figure)} ms against the ceiling of ${CEILING_MS} ms (${(figure / CEILING_MS).toFixed(2)} of it); load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
