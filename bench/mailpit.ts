// bench/mailpit: Mailpit's API (/mailpit/api/v1, issue 24) over 100,000 messages in one Sandbox server, on
// SQLite and PostgreSQL, measured in one run on this machine beside a bare Fastify route (the ceiling: the
// least an HTTP request costs through inject on this machine at this moment).
//   npm run bench:mailpit   (BENCH_MESSAGES=100000, BENCH_RUNS=40, BENCH_DB=sqlite,postgres)
//   run it as `flock /tmp/bench.lock npm run bench:mailpit` on a shared machine.
// The data is bench/search's (search-data.ts: 95% of it in the measured server, 50 tags, a To each, every
// fourth a Cc), made a Sandbox server's, a third of it read. Requests go through the whole stack in-process
// (app.inject: routing, Basic auth and token lookup, the queries, the mapping, serialization).
import { execSync } from 'node:child_process';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { type BenchDialect, benchDialects, openSearchBench } from './bench-db.js';
import { buildApp } from '../src/http/app.js';
import { createPartitionsBetween } from '../src/infra/db/partitions.js';
import { benchMessageId, loadSql, STEP, T0 } from './search-data.js';

const N = Number(process.env.BENCH_MESSAGES ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const TOKEN = 'bench-server-token-000000000000001';
const AUTH = `Basic ${Buffer.from(`bench:${TOKEN}`).toString('base64')}`;

/** An id of the measured server (n not a multiple of 20: those are the other server's). */
const idOf = (i: number) => benchMessageId(1 + (((i * 7919) % Math.floor(N / 20)) * 20 + 1));

const CASES: Array<[string, (i: number) => string]> = [
  ['list, first page (50)', () => '/mailpit/api/v1/messages'],
  ['list, deep page (50 @ 50,000)', () => '/mailpit/api/v1/messages?start=50000&limit=50'],
  ['search to: (a recipient)', (i) => `/mailpit/api/v1/search?query=${encodeURIComponent(`to:user${(i * 7919 + 13) % 100000}@example.net`)}`],
  ['search tag: + is:unread', (i) => `/mailpit/api/v1/search?query=${encodeURIComponent(`tag:tag${i % 50} is:unread`)}`],
  ['search subject: phrase', (i) => `/mailpit/api/v1/search?query=${encodeURIComponent(`subject:"Subject ${1000 + i}"`)}`],
  ['search free text', (i) => `/mailpit/api/v1/search?query=${encodeURIComponent(`cc${i % 50000}@`)}`],
  ['message summary', (i) => `/mailpit/api/v1/message/${idOf(i)}`],
  ['message summary, latest', () => '/mailpit/api/v1/message/latest'],
];

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

async function timed(run: () => Promise<{ statusCode: number; body: string }>, name: string): Promise<number[]> {
  for (let i = 0; i < 3; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const r = await run();
    times.push(performance.now() - started);
    if (r.statusCode !== 200) throw new Error(`${name}: ${r.statusCode} ${r.body.slice(0, 200)}`);
  }
  return times;
}

const line = (name: string, t: number[], floor: number) =>
  console.log(`  ${name.padEnd(32)} p50 ${pct(t, 50).toFixed(1).padStart(7)} ms   p95 ${pct(t, 95).toFixed(1).padStart(7)} ms   (${(pct(t, 95) / floor).toFixed(0).padStart(4)} x the bare route)`);

async function run(dialect: BenchDialect): Promise<void> {
  const { database, ctx, serverId, otherId } = await openSearchBench(dialect, 'mailpit', 4, TOKEN);
  const other = { id: otherId };
  try {
    const server = { id: serverId };
    const t = Date.now();
    await createPartitionsBetween(ctx.db, T0, T0 + N * STEP);
    for (const q of loadSql(ctx, server!.id, other.id, N)) await q.execute(ctx.db);
    // The measured server is a Sandbox server: its messages were recorded as such.
    await ctx.db.updateTable('servers').set({ delivery_type: 'Sandbox' }).where('id', '=', server!.id).execute();
    await ctx.db.updateTable('messages').set({ sandbox: 1 }).where('server_id', '=', server!.id).execute();
    await sql`insert into mailpit_state (message_id, server_id, read) select id, server_id, 1 from messages where server_id = ${server!.id} and received_at % ${sql.lit(3 * STEP)} = 0`.execute(ctx.db);
    if (dialect === 'postgres') await sql`vacuum analyze messages, message_recipients, mailpit_state`.execute(ctx.db);
    const total = await ctx.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('server_id', '=', server!.id).executeTakeFirstOrThrow();
    console.log(`\n${dialect}: ${N.toLocaleString('en')} messages loaded, ${Number(total.n).toLocaleString('en')} in the Sandbox server, in ${((Date.now() - t) / 1000).toFixed(1)} s; load ${execSync('uptime').toString().trim().replace(/^.*load average/, 'load average')}`);

    const bare = Fastify();
    bare.get('/bare', async () => ({ total: 0, unread: 0, messages: [] }));
    await bare.ready();
    const floorTimes = await timed(() => bare.inject({ method: 'GET', url: '/bare' }), 'bare');
    const floor = Math.max(0.01, pct(floorTimes, 95));
    line('bare Fastify route (ceiling)', floorTimes, floor);

    const app = await buildApp(ctx);
    for (const [name, url] of CASES) {
      let i = 0;
      line(name, await timed(() => app.inject({ method: 'GET', url: url(i++), headers: { authorization: AUTH } }), name), floor);
    }
    await app.close();
    await bare.close();
    console.log(`  load after: ${execSync('uptime').toString().trim().replace(/^.*load average/, 'load average')}`);
  } finally {
    await ctx.close();
    await database.drop();
  }
}

console.log(`bench/mailpit: ${N.toLocaleString('en')} messages, ${RUNS} runs per request`);
for (const d of benchDialects()) await run(d);
process.exit(0);
