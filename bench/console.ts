// bench/console: server time of the web console's pages over 1,000,000 stored messages, on SQLite and on
// PostgreSQL, measured in one run on this machine (issue 14: every page under 300 ms).
//   npm run bench:console            (BENCH_MESSAGES=1000000, BENCH_RUNS=20 per page, BENCH_DB=sqlite,postgres)
// Same data as bench/search (bench/search-data.ts). Pages are requested in-process (app.inject) with a
// signed-in session cookie: session lookup, the domain queries, HTML rendering. The floor beside the figures
// is the API's GET /messages/{id}/dump, one primary-key lookup through the same stack.
import { sql } from 'kysely';
import { signIn } from '../src/domain/console-users/sessions.js';
import { addUser } from '../src/domain/console-users/users.js';
import { type BenchDialect, benchDialects, openSearchBench } from './bench-db.js';
import { buildApp } from '../src/http/app.js';
import { benchInboundId, INBOUND_STEP, loadInboundSql } from './inbound-data.js';
import { benchMessageId, loadSql, STEP, T0 } from './search-data.js';

const N = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
/** Inbound messages of the Inbound pages (issue 26). */
const M = Number(process.env.BENCH_INBOUND ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const TOKEN = 'bench-server-token-000000000000001';
const CEILING_MS = 300;

const id = benchMessageId;
const day = (d: number) => new Date(T0 + d * 86_400_000).toISOString().slice(0, 10);
/** A message of server A (n not a multiple of 20). */
const mine = (i: number) => 1 + ((i * 7919) % (N - 1)) + (((1 + ((i * 7919) % (N - 1))) % 20 === 0) ? 1 : 0);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

async function run(dialect: BenchDialect): Promise<void> {
  const { database, ctx, serverId, otherId } = await openSearchBench(dialect, 'console', 4, TOKEN);
  const other = { id: otherId };
  try {
    const sid = serverId;
    const t = Date.now();
    for (const q of loadSql(ctx, sid, other.id, N)) await q.execute(ctx.db);
    for (const q of loadInboundSql(ctx, sid, other.id, M)) await q.execute(ctx.db);
    if (dialect === 'postgres') await sql`vacuum analyze messages, message_recipients, inbound_messages, inbound_attempts`.execute(ctx.db);
    console.log(`\n${dialect}: loaded ${N.toLocaleString('en')} messages and ${M.toLocaleString('en')} inbound messages in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    await addUser(ctx.db, { email: 'bench@example.com', role: 'admin', password: 'bench password 1' }, Date.now());
    const session = await signIn(ctx.db, 'bench@example.com', 'bench password 1', Date.now());
    if (session.kind !== 'ok') throw new Error('sign-in failed');
    const cookie = `mailroom_session=${session.cookieValue}`;

    const app = await buildApp(ctx);
    const get = async (url: string, api = false) => {
      const started = performance.now();
      const r = await app.inject({ method: 'GET', url, headers: api ? { 'x-service-server-token': TOKEN } : { cookie } });
      const ms = performance.now() - started;
      if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
      return ms;
    };
    const measure = async (name: string, url: (i: number) => string, api = false) => {
      for (let i = 0; i < 2; i++) await get(url(1000 + i), api);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await get(url(i), api));
      const p95 = pct(times, 95);
      console.log(`  ${name.padEnd(40)} p50 ${pct(times, 50).toFixed(1).padStart(6)} ms   p95 ${p95.toFixed(1).padStart(6)} ms ${p95 < CEILING_MS ? '  ' : '!!'}`);
    };
    const s = `/console/s/${sid}`;
    const cursor = (i: number) => { const n = mine(i); return `${T0 + n * STEP}.${id(n)}`; };
    await measure('floor: API dump of one message', (i) => `/messages/${id(mine(i))}/dump`, true);
    await measure('activity, newest', () => `${s}/activity`);
    await measure('activity, older page (keyset, anywhere)', (i) => `${s}/activity?before=${cursor(i)}`);
    await measure('activity, live (new since newest)', () => `${s}/activity/live?after=${T0 + N * STEP}.${id(N)}`);
    await measure('activity by recipient', (i) => `${s}/activity?recipient=user${(i * 7919 + 13) % 100000}@example.net`);
    await measure('activity by tag', (i) => `${s}/activity?tag=tag${i % 50}`);
    await measure('activity by tag, older page', (i) => `${s}/activity?tag=tag${i % 50}&before=${cursor(i)}`);
    await measure('activity by date (one day)', (i) => `${s}/activity?fromdate=${day(1 + (i % 40))}&todate=${day(1 + (i % 40))}`);
    await measure('activity bounced', () => `${s}/activity?status=bounced`);
    await measure('activity by metadata (+ tag)', (i) => `${s}/activity?tag=tag${i % 50}&metakey=customer&metavalue=c${i % 1000}`);
    await measure('message page', (i) => `${s}/messages/${id(mine(i))}`);
    await measure('message body frame', (i) => `${s}/messages/${id(mine(i))}/body`);
    for (const p of ['bounces', 'suppressions', 'streams', 'templates', 'webhooks', 'stats']) await measure(p, () => `${s}/${p}`);
    // Inbound (issue 26): server A's inbound messages (n not a multiple of 20).
    const inMine = (i: number) => { const n = 1 + ((i * 7919) % (M - 1)); return n % 20 === 0 ? n + 1 : n; };
    const inCursor = (i: number) => { const n = inMine(i); return `${T0 + n * INBOUND_STEP}.${benchInboundId(n)}`; };
    await measure('inbound, newest', () => `${s}/inbound`);
    await measure('inbound, older page (keyset, anywhere)', (i) => `${s}/inbound?before=${inCursor(i)}`);
    await measure('inbound, live (new since newest)', () => `${s}/inbound/live?after=${T0 + M * INBOUND_STEP}.${benchInboundId(M)}`);
    await measure('inbound blocked', () => `${s}/inbound?status=blocked`);
    await measure('inbound by tag', (i) => `${s}/inbound?tag=tag${i % 20}`);
    await measure('inbound by MailboxHash (1 in 2,000)', (i) => `${s}/inbound?mailboxhash=t${(i * 2) % 1000}`);
    await measure('inbound by sender (contains, 1 in 5,000)', (i) => `${s}/inbound?fromemail=customer${(i * 37) % 5000}@`);
    await measure('inbound by date (one day)', (i) => `${s}/inbound?fromdate=${day(1 + (i % 40))}&todate=${day(1 + (i % 40))}`);
    await measure('inbound message page', (i) => `${s}/inbound/messages/${benchInboundId(inMine(i))}`);
    await measure('inbound rules', () => `${s}/inbound/rules`);
    await measure('stats (a year, with inbound by day)', () => `${s}/stats?fromdate=${day(-300)}&todate=${day(60)}`);
    await measure('servers (admin)', () => '/console/servers');
    await measure('senders & domains (admin)', () => '/console/senders');
    await app.close();
  } finally {
    await ctx.close();
    await database.drop();
  }
}

console.log(`bench/console: ${N.toLocaleString('en')} messages, ${M.toLocaleString('en')} inbound, ${RUNS} runs per page, ceiling p95 < ${CEILING_MS} ms`);
for (const d of benchDialects()) await run(d);
process.exit(0);
