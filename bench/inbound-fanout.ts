// bench/inbound-fanout: the memory and work of one large message to many addresses of one server (issue 27:
// 9.8 MB to 50 `+tag` addresses was stored and posted 50 times, RSS 261 MB -> 2,993 MB).
//   npx tsx bench/inbound-fanout.ts        (BENCH_MB=9.8, BENCH_ADDRESSES=50)
// The service runs in this process on a fresh SQLite file (production settings); the SMTP client and the
// application's HTTP receiver are child processes, so their memory is not counted. Printed: rows stored,
// posts and bytes the application received, this process's RSS before and at its peak (sampled every 20 ms),
// the longest event-loop stall, the database's growth on disk, and the service's CPU time (on a loaded machine
// the stall in wall time is several times the CPU time).
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { bootstrap } from '../src/domain/accounts/bootstrap.js';
import { registerInbound } from '../src/domain/inbound/register.js';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { migrateToLatest } from '../src/infra/db/migrate.js';
import { startInboundListener } from '../src/smtp-listeners/inbound-listener.js';

const MB = Number(process.env.BENCH_MB ?? 9.8);
const ADDRESSES = Number(process.env.BENCH_ADDRESSES ?? 50);
const SECRET = 'bench-secret-key-bench-secret-key-0123456789';

const receiver = fork(new URL('./http-receiver-process.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const receiverPort: number = (await new Promise<any>((r) => receiver.once('message', r))).port;
const dns = fork(new URL('./dns-process.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const dnsAddress: string = (await new Promise<any>((r) => dns.once('message', r))).address;
const ask = () => new Promise<{ count: number; bytes: number }>((r) => (receiver.once('message', r as any), receiver.send('count')));

/** One message, sent by nodemailer in a child process: `mb` megabytes on the wire (a base64 attachment). */
function sendMail(port: number, to: string[], mb: number): Promise<string> {
  const script = `
    import nodemailer from 'nodemailer';
    const [port, mb, ...to] = process.argv.slice(1);
    const bytes = Math.floor((Number(mb) * 1e6 * 3) / 4 / 1.027);
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: Number(port), secure: false, ignoreTLS: true });
    t.sendMail({ envelope: { from: 'jane@customer.example', to }, from: 'jane@customer.example', to: to.slice(0, 2), subject: 'fanout',
      text: 'See the attachment.', attachments: [{ filename: 'big.bin', content: Buffer.alloc(bytes, 'abcdefghij') }] })
      .then((i) => { console.log(i.response); t.close(); }, (e) => { console.log(e.response ?? e.message); t.close(); });`;
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--input-type=module', '-e', script, String(port), String(mb), ...to], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('close', () => resolve(out.trim()));
  });
}

const dirSize = (dir: string) => readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-fanout-'));
const config = loadConfig({
  MAILROOM_DATABASE_URL: join(dir, 'mailroom.db'),
  MAILROOM_LOG_LEVEL: 'warn',
  MAILROOM_SERVER_TOKEN: 'bench-server-token-000000000000001',
  MAILROOM_ACCOUNT_TOKEN: 'bench-account-token-00000000000001',
  MAILROOM_INBOUND_SMTP_PORT: '0',
  MAILROOM_DNS_SERVERS: dnsAddress,
  MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true',
});
const ctx = createContext(config, { secretKey: SECRET });
try {
  await migrateToLatest(ctx.database);
  await bootstrap(ctx.database, config, Date.now());
  const server = await ctx.db.selectFrom('servers').select(['id', 'inbound_hash']).executeTakeFirstOrThrow();
  await ctx.db.updateTable('servers').set({ inbound_hook_url: `http://127.0.0.1:${receiverPort}/inbound` }).where('id', '=', server.id).execute();
  const to = Array.from({ length: ADDRESSES }, (_, i) => `${server.inbound_hash}+tag${i}@${config.inboundDomain}`);
  const stopHooks = registerInbound(ctx);
  const listener = await startInboundListener(ctx);
  ctx.runner.start();
  const settled = async () => {
    const r = await ctx.db.selectFrom('inbound_messages').select((e) => e.fn.countAll().as('n')).where('status', 'in', ['Queued', 'Scheduled']).executeTakeFirstOrThrow();
    return Number(r.n) === 0;
  };
  // Warm-up: one small message (JIT, pools, DNS time-outs cached), not measured.
  await sendMail(listener.port, to.slice(0, 1), 0.01);
  while (!(await settled())) await new Promise((r) => setTimeout(r, 50));
  (globalThis as { gc?: () => void }).gc?.();
  const posts0 = await ask();
  const db0 = dirSize(dir);
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const reply = await sendMail(listener.port, to, MB);
  const smtpSeconds = (performance.now() - t0) / 1000;
  while (!(await settled())) await new Promise((r) => setTimeout(r, 50));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  loop.disable();
  clearInterval(sampler);
  const posts = await ask();
  const rows = await ctx.db.selectFrom('inbound_messages').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow();
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  console.log(`bench/inbound-fanout: one ${MB} MB message to ${ADDRESSES} addresses of one server (load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  console.log(`  SMTP reply            ${reply.slice(0, 90)} (${smtpSeconds.toFixed(1)} s)`);
  console.log(`  rows stored           ${Number(rows.n) - 1}`);
  console.log(`  posts to the app      ${posts.count - posts0.count} (${mb(posts.bytes - posts0.bytes)})`);
  console.log(`  RSS                   ${mb(rss0)} before, ${mb(peak)} at the peak (+${mb(peak - rss0)})`);
  console.log(`  longest loop stall    ${(loop.max / 1e6).toFixed(0)} ms`);
  console.log(`  database on disk      +${mb(dirSize(dir) - db0)}`);
  console.log(`  settled after         ${seconds.toFixed(1)} s, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s of this process's CPU`);
  await ctx.runner.stop();
  await listener.stop();
  await stopHooks();
} finally {
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
  receiver.kill();
  dns.kill();
}
