// bench/startup: how long `mailroom serve` on an empty database takes to answer /readyz (the built dist/, as
// `npm start` runs it), on SQLite (a fresh file) and PostgreSQL (a fresh schema), beside its ceiling of 1.5 s
// and the floor of the same machine in the same run: a bare `node -e` process, one that only imports the
// modules serve loads as tsc compiled them (dist/serve.js, unbundled), one that loads the bundle dist/cli.js
// and prints its help, and a bare Fastify that listens and answers one route. Wall time to the first 200 and
// the process's CPU time by then (user + system, /proc), which a loaded machine inflates less.
//   npm run build && npm run bench:startup        (BENCH_RUNS, default 5; BENCH_DB=sqlite,postgres; medians)
// BENCH_COMPARE=<a dist folder inside the checkout> adds the same serve rows for that build, alternating with
// dist/ in each run, so that two builds are compared at the same load.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchDatabase, benchDialects, type BenchDialect } from './bench-db.js';

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

type Run = { wall: number; cpu: number };

/** One start: wall and CPU ms until `ready` says so; the process is stopped after. */
async function once(args: string[], env: NodeJS.ProcessEnv, ready: (child: ChildProcess, output: () => string) => Promise<void>): Promise<Run> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await ready(child, () => out);
  const r = { wall: performance.now() - t0, cpu: child.exitCode === null ? cpuMs(child.pid!) : 0 };
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  return r;
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));

/** Polls `GET /readyz` on the port the process's log names (it listens on port 0: the machine is shared). */
async function readyz(child: ChildProcess, output: () => string): Promise<void> {
  let url: string | undefined;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}) before /readyz answered 200:\n${output()}`);
    url ??= /"url":"(http:\/\/[^"]+)"|listening on (http:\/\/\S+)/.exec(output())?.slice(1).find(Boolean);
    if (url) {
      try {
        if ((await fetch(`${url}/readyz`)).ok) return;
      } catch {
        // not answering yet
      }
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function serveOnce(dialect: BenchDialect, cli = CLI): Promise<Run | null> {
  const db = await benchDatabase(dialect, 'startup');
  if (!db) return null;
  const u = new URL(db.url.startsWith('postgres') ? db.url : `file://${db.url}`);
  if (db.dbOptions.schema) u.searchParams.set('options', `-c search_path=${db.dbOptions.schema}`);
  const full = db.dbOptions.schema ? u.toString() : db.url;
  const env = { ...process.env, MAILROOM_PORT: '0', MAILROOM_INBOUND_SMTP_PORT: '0', MAILROOM_SUBMISSION_PORT: 'off', MAILROOM_DATABASE_URL: full, MAILROOM_LOG_LEVEL: 'info' };
  try {
    return await once([cli, 'serve'], env, readyz);
  } finally {
    await db.drop();
  }
}

const FASTIFY = `import Fastify from ${JSON.stringify(join(ROOT, 'node_modules/fastify/fastify.js'))};
const app = Fastify(); app.get('/readyz', async () => ({ ok: true }));
console.log('listening on ' + await app.listen({ port: 0, host: '127.0.0.1' }));`;

const dialects = benchDialects();
const COMPARE = process.env.BENCH_COMPARE ? join(process.env.BENCH_COMPARE, 'cli.js') : undefined;
if (COMPARE && !existsSync(COMPARE)) throw new Error(`${COMPARE} is missing`);
const rows: Record<string, Run[]> = { 'node -e ""': [], "import serve's modules": [], 'dist/cli.js --help': [], 'bare Fastify listen': [] };
for (const d of dialects) {
  rows[`serve, empty ${d}`] = [];
  if (COMPARE) rows[`compare, empty ${d}`] = [];
}
for (let i = 0; i < RUNS; i++) {
  rows['node -e ""']!.push(await once(['-e', ''], process.env, exited));
  rows["import serve's modules"]!.push(await once(['--input-type=module', '-e', `await import(${JSON.stringify(join(ROOT, 'dist/serve.js'))})`], process.env, exited));
  rows['dist/cli.js --help']!.push(await once([CLI, '--help'], process.env, exited));
  rows['bare Fastify listen']!.push(await once(['--input-type=module', '-e', FASTIFY], process.env, readyz));
  for (const d of dialects) {
    const r = await serveOnce(d);
    if (r) rows[`serve, empty ${d}`]!.push(r);
    const c = COMPARE ? await serveOnce(d, COMPARE) : null;
    if (c) rows[`compare, empty ${d}`]!.push(c);
  }
}
for (const [name, r] of Object.entries(rows)) {
  if (r.length === 0) {
    console.log(`${name.padEnd(26)} skipped (database unreachable)`);
    continue;
  }
  const walls = r.map((x) => Math.round(x.wall));
  console.log(`${name.padEnd(26)} wall ${String(median(walls)).padStart(6)} ms   CPU ${r.every((x) => x.cpu) ? `${median(r.map((x) => x.cpu))} ms` : '(exited)'}   runs ${walls.join(', ')}`);
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
for (const d of dialects) {
  const r = rows[`serve, empty ${d}`]!;
  if (r.length === 0) continue;
  const figure = median(r.map((x) => x.wall));
  const floor = median(rows['bare Fastify listen']!.map((x) => x.wall));
  console.log(`${d}: /readyz after ${Math.round(figure)} ms against the ceiling of ${CEILING_MS} ms (${(figure / CEILING_MS).toFixed(2)} of it; ${(figure / floor).toFixed(1)}x a bare Fastify); load ${load}`);
}
