// bench/volume: every search and list the API, the Mailpit API and the console offer, over 1M and 10M stored
// messages, on SQLite and PostgreSQL, each beside two ceilings measured in the same run: a bare Fastify
// route (the least a request costs through inject here) and one message by primary key through the whole
// stack (GET /messages/outbound/{id}/details).
//   npm run bench:volume                         (BENCH_VOLUMES=1000000,10000000 BENCH_DB=sqlite,postgres BENCH_RUNS=30)
//   BENCH_VOLUMES=1000000 npm run bench:volume   run it as `flock /tmp/bench.lock npm run bench:volume` on a shared machine
//   BENCH_KEEP=1 keeps the loaded database (a file under the temp folder, a schema bench_volume_<N>) and the
//   next run with BENCH_KEEP=1 reuses it, migrated to the latest migration first (which times a new index's
//   backfill at volume). Remove it by hand: the folder mailroom-bench-volume-kept, the schema.
// The data is bench/search's (search-data.ts, loaded by the database in batches of 1M: 95% of it in the
// measured server, which is a Sandbox server here, so that its messages are also Mailpit's inbox; 50 tags,
// a To each among 100,000 addresses, every fourth a Cc, metadata customer c0..c999), a third of it read.
// A request past its time limit is counted (503), not timed: the table says how many of the runs were.
import { execSync } from 'node:child_process';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { searchMessages } from '../src/domain/messages/search.js';
import { inboxCounts } from '../src/domain/mailpit/inbox.js';
import { inboxPage } from '../src/domain/mailpit/inbox-list.js';
import { parseQuery } from '../src/domain/mailpit/query.js';
import { buildApp } from '../src/http/app.js';
import { createPartitionsBetween } from '../src/infra/db/partitions.js';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createContext, type AppContext } from '../src/context.js';
import { migrateToLatest } from '../src/infra/db/migrate.js';
import { BENCH_PG_URL, type BenchDialect, benchDialects, openSearchBench } from './bench-db.js';
import { benchMessageId, loadSql, STEP, T0 } from './search-data.js';

const VOLUMES = (process.env.BENCH_VOLUMES ?? '1000000,10000000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
/** BENCH_ONLY=Mailpit list,Activity: only the requests whose names contain one of these (ceilings always run). */
const ONLY = process.env.BENCH_ONLY?.split(',').filter(Boolean);
const wanted = (name: string) => !ONLY || ONLY.some((o) => name.includes(o));
const TOKEN = 'bench-server-token-000000000000001';
const AUTH = `Basic ${Buffer.from(`bench:${TOKEN}`).toString('base64')}`;
const BATCH = 1_000_000;

type Case = [string, (i: number, n: number) => string];
const API: Case[] = [
  ['/messages/outbound newest', () => '/messages/outbound?count=50&offset=0'],
  ['/messages/outbound by recipient', (i) => `/messages/outbound?count=50&offset=0&recipient=user${(i * 7919 + 13) % 100000}@example.net`],
  ['/messages/outbound by tag', (i) => `/messages/outbound?count=50&offset=0&tag=tag${i % 50}`],
  ['/messages/outbound?subject= (rare)', (i, n) => `/messages/outbound?count=50&offset=0&subject=${encodeURIComponent(`Subject ${n - 1000 - i * 37}`)}`],
  ['/messages/outbound?metadata_customer=', (i) => `/messages/outbound?count=50&offset=0&metadata_customer=c${i % 1000}`],
  ['Mailpit list, first page', () => '/mailpit/api/v1/messages'],
  ['Mailpit list, page at 50,000', () => '/mailpit/api/v1/messages?start=50000&limit=50'],
  ['Mailpit search to:', (i) => `/mailpit/api/v1/search?query=${encodeURIComponent(`to:user${(i * 7919 + 13) % 100000}@example.net`)}`],
  ['Mailpit search tag: + is:unread', (i) => `/mailpit/api/v1/search?query=${encodeURIComponent(`tag:tag${i % 50} is:unread`)}`],
  ['Mailpit free text (rare)', (i) => `/mailpit/api/v1/search?query=${encodeURIComponent(`cc${(i * 131) % 50000}@`)}`],
  ['Mailpit free text (common word)', () => `/mailpit/api/v1/search?query=hello`],
  ['Mailpit free text, negated 999 chars', () => `/mailpit/api/v1/search?query=-${'q'.repeat(999)}`],
];

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** Times a request RUNS times (fewer when it takes seconds); a 503 (time limit) is counted apart. */
async function timed(run: () => Promise<{ statusCode: number; body: string }>, name: string): Promise<{ t: number[]; limited: number; runs: number }> {
  const t: number[] = [];
  let limited = 0;
  let runs = 0;
  const started = performance.now();
  for (let i = 0; i < RUNS + 2; i++) {
    const t0 = performance.now();
    const r = await run();
    const ms = performance.now() - t0;
    if (r.statusCode === 503) limited += i >= 2 ? 1 : 0;
    else if (r.statusCode !== 200) throw new Error(`${name}: ${r.statusCode} ${r.body.slice(0, 200)}`);
    else if (i >= 2) t.push(ms);
    if (i >= 2) runs++;
    if (performance.now() - started > 30_000) break;
  }
  return { t, limited, runs };
}

const fmt = (x: number) => (Number.isNaN(x) ? '-' : x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString('en'));
const line = (name: string, r: { t: number[]; limited: number; runs: number }, pk: number) =>
  console.log(
    `| ${name} | ${fmt(pct(r.t, 50))} / ${fmt(pct(r.t, 95))} | ${r.t.length ? `${(pct(r.t, 95) / pk).toFixed(1)}x` : '-'} | ${r.limited ? `${r.limited} of ${r.runs} past the time limit (503)` : ''} |`,
  );
const loadNow = () => execSync('uptime').toString().trim().replace(/^.*load average/, 'load average');

interface Opened {
  ctx: AppContext;
  serverId: number;
  otherId: number;
  /** Seconds the load took, or null: a kept database was reused (and migrated in `migrated` seconds). */
  loaded: number | null;
  migrated: number;
  close(): Promise<void>;
}

/** A kept database of an earlier BENCH_KEEP run, migrated to the latest; null when there is none. */
async function reuseKept(dialect: BenchDialect, N: number): Promise<Opened | null> {
  const dir = join(tmpdir(), 'mailroom-bench-volume-kept');
  mkdirSync(dir, { recursive: true });
  const url = dialect === 'sqlite' ? join(dir, `volume-${N}.db`) : BENCH_PG_URL;
  const schema = `bench_volume_${N}`;
  let exists = false;
  if (dialect === 'sqlite') exists = existsSync(url);
  else {
    const c = new pg.Client({ connectionString: BENCH_PG_URL });
    await c.connect();
    exists = (await c.query(`select 1 from pg_namespace where nspname = $1`, [schema])).rowCount === 1;
    if (!exists) await c.query(`create schema ${schema}`);
    await c.end();
  }
  const config = loadConfig({ MAILROOM_DATABASE_URL: url, MAILROOM_LOG_LEVEL: 'silent', MAILROOM_SERVER_TOKEN: TOKEN });
  const ctx = createContext(config, { dbOptions: dialect === 'postgres' ? { schema, poolSize: 10 } : {}, secretKey: 'bench-secret-key-bench-secret-key-0123456789' });
  if (!exists) {
    await ctx.close();
    return null;
  }
  const t = Date.now();
  await migrateToLatest(ctx.database);
  const migrated = (Date.now() - t) / 1000;
  const [a, b] = await ctx.db.selectFrom('servers').select('id').orderBy('id').execute();
  return { ctx, serverId: a!.id, otherId: b!.id, loaded: null, migrated, close: () => ctx.close() };
}

async function open(dialect: BenchDialect, N: number): Promise<Opened> {
  const keep = process.env.BENCH_KEEP === '1';
  if (keep) {
    const kept = await reuseKept(dialect, N);
    if (kept) return kept;
  }
  let ctx: AppContext;
  let serverId: number;
  let otherId: number;
  let close: () => Promise<void>;
  if (keep) {
    // reuseKept made the (empty) schema; the same opening, then the bench's servers as openSearchBench makes them.
    const dir = join(tmpdir(), 'mailroom-bench-volume-kept');
    const url = dialect === 'sqlite' ? join(dir, `volume-${N}.db`) : BENCH_PG_URL;
    const config = loadConfig({ MAILROOM_DATABASE_URL: url, MAILROOM_LOG_LEVEL: 'silent', MAILROOM_SERVER_TOKEN: TOKEN });
    ctx = createContext(config, { dbOptions: dialect === 'postgres' ? { schema: `bench_volume_${N}`, poolSize: 10 } : {}, secretKey: 'bench-secret-key-bench-secret-key-0123456789' });
    await migrateToLatest(ctx.database);
    const { bootstrap } = await import('../src/domain/accounts/bootstrap.js');
    await bootstrap(ctx.database, config, Date.now());
    const [server] = await ctx.db.selectFrom('servers').select(['id', 'account_id']).orderBy('id').execute();
    const other = await ctx.db.insertInto('servers').values({ account_id: server!.account_id, name: 'Other', created_at: Date.now() }).returning('id').executeTakeFirstOrThrow();
    serverId = server!.id;
    otherId = other.id;
    const c = ctx;
    close = () => c.close();
  } else {
    const b = await openSearchBench(dialect, 'volume', 10, TOKEN);
    ({ ctx, serverId, otherId } = b);
    close = async () => {
      await b.ctx.close();
      await b.database.drop();
    };
  }
  await ctx.db.updateTable('servers').set({ delivery_type: 'Sandbox' }).where('id', '=', serverId).execute();
  const t = Date.now();
  await createPartitionsBetween(ctx.db, T0, T0 + N * STEP);
  // In batches of a million: one transaction per statement, as a fill over time would be.
  for (let from = 1; from <= N; from += BATCH) {
    for (const q of loadSql(ctx, serverId, otherId, Math.min(N, from + BATCH - 1), { sandboxA: true, from })) await q.execute(ctx.db);
  }
  const loaded = (Date.now() - t) / 1000;
  await sql`insert into mailpit_state (message_id, server_id, read) select id, server_id, 1 from messages where server_id = ${serverId} and received_at % ${sql.lit(3 * STEP)} = 0`.execute(ctx.db);
  if (dialect === 'postgres') await sql`vacuum analyze messages, message_recipients, mailpit_state`.execute(ctx.db);
  return { ctx, serverId, otherId, loaded, migrated: 0, close };
}

async function run(dialect: BenchDialect, N: number): Promise<void> {
  const { ctx, serverId, loaded, migrated, close } = await open(dialect, N);
  try {
    const server = { id: serverId };
    const how = loaded === null ? `a kept database, migrated in ${migrated.toFixed(0)} s` : `loaded with their index entries in ${loaded.toFixed(0)} s`;
    console.log(`\n### ${dialect}, ${N.toLocaleString('en')} messages (${how}; ${loadNow()})\n`);
    console.log('| request | p50 / p95 ms | p95 / primary-key ceiling | |');
    console.log('|---|---|---|---|');

    const bare = Fastify();
    bare.get('/bare', async () => ({ total: 0, unread: 0, messages: [] }));
    await bare.ready();
    line('ceiling: bare Fastify route', await timed(() => bare.inject({ method: 'GET', url: '/bare' }), 'bare'), 1);
    const app = await buildApp(ctx);
    const get = (url: string) => app.inject({ method: 'GET', url, headers: url.startsWith('/mailpit') ? { authorization: AUTH } : { 'x-postmark-server-token': TOKEN } });
    let k = 0;
    const pkRun = await timed(() => get(`/messages/outbound/${benchMessageId(1 + ((k++ * 7919) % Math.floor(N / 20)) * 20 + 1)}/details`), 'pk');
    const pk = Math.max(0.01, pct(pkRun.t, 95));
    line('ceiling: one message by primary key (details)', pkRun, pk);
    for (const [name, url] of API.filter(([name]) => wanted(name))) {
      let i = 0;
      line(name, await timed(() => get(url(i++, N)), name), pk);
    }
    // The console's Activity page of a Sandbox server: its search (keyset, no TotalCount) and inbox counts.
    const consoleRun = async (q: Record<string, string>) => {
      try {
        await Promise.all([searchMessages(ctx, server!.id, { count: 50, offset: 0, withTotal: false, ...q }), inboxCounts(ctx, { id: server!.id, delivery_type: 'Sandbox' })]);
        return { statusCode: 200, body: '' };
      } catch (err) {
        return { statusCode: (err as { errorCode?: number }).errorCode === 702 ? 503 : 500, body: String(err) };
      }
    };
    // The same page with "all streams" or a search in Mailpit's syntax: the Mailpit listing code (inbox-list.ts).
    const consoleList = async (q: string) => {
      try {
        const box = { id: server!.id, delivery_type: 'Sandbox' };
        await Promise.all([inboxPage(ctx, box, q ? parseQuery(q) : [], undefined, 50), inboxCounts(ctx, box)]);
        return { statusCode: 200, body: '' };
      } catch (err) {
        return { statusCode: (err as { errorCode?: number }).errorCode === 702 ? 503 : 500, body: String(err) };
      }
    };
    let t = 0;
    if (wanted('Console Activity, all streams')) line('Console Activity, all streams', await timed(() => consoleList(''), 'activity all'), pk);
    if (wanted('Console Activity, tag: + is:unread')) line('Console Activity, tag: + is:unread', await timed(() => consoleList(`tag:tag${t++ % 50} is:unread`), 'activity tag'), pk);
    if (wanted('Console Activity, Sandbox server')) line('Console Activity, Sandbox server', await timed(() => consoleRun({}), 'activity'), pk);
    let j = 0;
    if (wanted('Console Activity, subject filter')) line('Console Activity, subject filter', await timed(() => consoleRun({ subject: `Subject ${N - 5000 - j++ * 37}` }), 'activity subject'), pk);
    await app.close();
    await bare.close();
    console.log(`\n(${loadNow()})`);
  } finally {
    await close();
  }
}

console.log(`bench/volume: ${RUNS} runs per request (fewer when a request takes seconds: at most 30 s each)`);
for (const N of VOLUMES) for (const d of benchDialects()) await run(d, N);
process.exit(0);
