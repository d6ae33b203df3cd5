// bench/inbound: messages per second from SMTP into the inbound listener to the JSON arriving at the
// application (an HTTP receiver), on SQLite and on PostgreSQL.
//   npm run bench:inbound          (BENCH_MESSAGES=3000 by default)
// Each message: text and HTML bodies, a 2 KB attachment, plus-addressed to the server's inbound address;
// mailroom checks SPF/DKIM/DMARC (mailauth, DNS from a loopback DNS server), parses, stores it with its
// hook job in a group commit, answers 250, and the worker POSTs the JSON.
// Beside it, in the same run, the ceiling: the same client sending the same messages to a bare SMTP sink
// (smtp-server counting messages). The client, the sink and the receiver are child processes; the service
// runs in this process with production settings (SQLite synchronous=FULL).
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { bootstrap } from '../src/domain/accounts/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { benchDatabase, pgReachable } from './bench-db.js';
import { createContext } from '../src/context.js';
import { migrateToLatest } from '../src/infra/db/migrate.js';
import { registerInbound } from '../src/domain/inbound/register.js';
import { startInboundListener } from '../src/smtp-listeners/inbound-listener.js';

const N = Number(process.env.BENCH_MESSAGES ?? 3000);
const SECRET = 'bench-secret-key-bench-secret-key-0123456789';

function child(file: string): { proc: ChildProcess; ask<T>(m: unknown): Promise<T>; first: Promise<any> } {
  const proc = fork(new URL(file, import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const first = new Promise<any>((resolve) => proc.once('message', resolve));
  return {
    proc,
    first,
    ask: <T>(m: unknown) =>
      new Promise<T>((resolve) => {
        proc.once('message', (r) => resolve(r as T));
        proc.send(m as any);
      }),
  };
}

const sink = child('./sink-process.ts');
const receiver = child('./http-receiver-process.ts');
const client = child('./smtp-client-process.ts');
const dnsServer = child('./dns-process.ts');
const dnsAddress: string = (await dnsServer.first).address;
const sinkPort: number = (await sink.first).port;
const receiverPort: number = (await receiver.first).port;
await client.first;
const send = (port: number, n: number, to: string) => client.ask<{ seconds: number; failed: number; firstError: string }>({ port, n, to });

async function waitFor(ask: () => Promise<{ count: number }>, n: number, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await ask()).count >= n) return;
    if (Date.now() > deadline) throw new Error(`only ${(await ask()).count} of ${n} arrived`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function benchMailroom(dialect: 'sqlite' | 'postgres'): Promise<{ rate: number; smtpRate: number; cpuMs: number; jobs: string }> {
  const database = await benchDatabase(dialect, 'inbound', { poolSize: 20 });
  if (!database) throw new Error('PostgreSQL is not reachable');
  const config = loadConfig({
    MAILROOM_DATABASE_URL: database.url,
    MAILROOM_LOG_LEVEL: 'warn',
    MAILROOM_SERVER_TOKEN: 'bench-server-token-000000000000001',
    MAILROOM_ACCOUNT_TOKEN: 'bench-account-token-00000000000001',
    MAILROOM_INBOUND_SMTP_PORT: '0',
    // The 32 connections all come from this host; the per-client cap (10 by default, issue 27) is for strangers.
    MAILROOM_INBOUND_SMTP_MAX_CLIENT_CONNECTIONS: '50',
    MAILROOM_DNS_SERVERS: dnsAddress,
    MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  const ctx = createContext(config, { secretKey: SECRET, dbOptions: database.dbOptions });
  try {
    await migrateToLatest(ctx.database);
    await bootstrap(ctx.database, config, Date.now());
    const server = await ctx.db.selectFrom('servers').select(['id', 'inbound_hash']).executeTakeFirstOrThrow();
    await ctx.db.updateTable('servers').set({ inbound_hook_url: `http://127.0.0.1:${receiverPort}/inbound` }).where('id', '=', server.id).execute();
    const to = `${server.inbound_hash}@${config.inboundDomain}`;
    const stopHooks = registerInbound(ctx);
    const listener = await startInboundListener(ctx);
    ctx.runner.start();
    // Warm-up (JIT, pools, statement caches), not measured.
    await receiver.ask('reset');
    await send(listener.port, 300, to);
    await waitFor(() => receiver.ask('count'), 300);

    await receiver.ask('reset');
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const stats0 = { ...ctx.runner.stats };
    const r = await send(listener.port, N, to);
    if (r.failed) throw new Error(`${r.failed} messages refused: ${r.firstError}`);
    await waitFor(() => receiver.ask('count'), N);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const st = ctx.runner.stats;
    const jobs = `hook jobs: ${st.handedOver - stats0.handedOver} handed over at commit, ${st.claimed - stats0.claimed} claimed in ${st.claims - stats0.claims} claim queries`;
    await ctx.runner.stop();
    await listener.stop();
    await stopHooks();
    const done = await ctx.db.selectFrom('inbound_messages').select((e) => e.fn.countAll().as('n')).where('status', '=', 'Processed').executeTakeFirstOrThrow();
    if (Number(done.n) !== N + 300) throw new Error(`${dialect}: ${done.n} of ${N + 300} messages Processed`);
    return { rate: N / seconds, smtpRate: N / r.seconds, cpuMs: (cpu.user + cpu.system) / 1000 / N, jobs };
  } finally {
    await ctx.close();
    await database.drop();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`bench/inbound: ${fmt(N)} messages (text + HTML + 2 KB attachment), 32 SMTP connections, client, sink, receiver and DNS server in child processes`);
const rows: Array<[string, string]> = [];

await sink.ask('reset');
await send(sinkPort, 300, 'sink@bench.example');
await sink.ask('reset');
const ceiling = await send(sinkPort, N, 'sink@bench.example');
await waitFor(() => sink.ask('count'), N);
rows.push(['bare SMTP sink (ceiling)', `${fmt(N / ceiling.seconds)} msg/s`]);

const show = (r: { rate: number; smtpRate: number; cpuMs: number; jobs: string }) =>
  `${fmt(r.rate)} msg/s end to end  (SMTP accepted at ${fmt(r.smtpRate)} msg/s, ${r.cpuMs.toFixed(2)} CPU ms/msg in the service; ${r.jobs})`;
const only = process.env.BENCH_DB ?? 'both';
if (only !== 'postgres') rows.push(['mailroom, SQLite (SMTP in -> JSON at receiver)', show(await benchMailroom('sqlite'))]);
if (only !== 'sqlite') {
  const pgOk = await pgReachable();
  rows.push(['mailroom, PostgreSQL (SMTP in -> JSON at receiver)', pgOk ? show(await benchMailroom('postgres')) : 'skipped: PostgreSQL not reachable']);
}

for (const [k, v] of rows) console.log(`${k.padEnd(50)} ${v}`);
console.log('target: >= 1,000 msg/s end to end; load average at the end:', loadavg().map((l) => l.toFixed(1)).join(' '));
for (const c of [sink, receiver, client, dnsServer]) c.proc.kill();
process.exit(0);
