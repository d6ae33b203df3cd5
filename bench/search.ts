// bench/search: latency of GET /messages (TotalCount included) over 1,000,000 stored messages, on SQLite
// and on PostgreSQL, measured in one run on this machine.
//   npm run bench:search             (BENCH_MESSAGES=1000000, BENCH_RUNS=40 per search, BENCH_DB=sqlite,postgres)
// Requests go through the whole HTTP stack in-process (app.inject: routing, auth, validation, the query,
// serialization). The rows are loaded in bulk by the database itself (recursive CTE / generate_series) into
// a fresh SQLite file and a PostgreSQL schema of its own (MAILROOM_BENCH_PG_URL, default the test database),
// dropped afterwards. The floor beside the figures is GET /messages/{id}/dump: one primary-key lookup
// through the same stack, the least any request can cost here.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { bootstrap } from '../src/domain/accounts/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { migrateToLatest } from '../src/infra/db/migrate.js';
import { buildApp } from '../src/http/app.js';
import { createPartitionsBetween } from '../src/infra/db/partitions.js';
import { benchMessageId, loadSql, STEP, T0 } from './search-data.js';

const N = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const DBS = (process.env.BENCH_DB ?? 'sqlite,postgres').split(',');
const PG_URL = process.env.MAILROOM_BENCH_PG_URL ?? process.env.MAILROOM_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TOKEN = 'bench-server-token-000000000000001';
const TARGET_P95 = 50;

const day = (d: number) => new Date(T0 + d * 86_400_000).toISOString().slice(0, 10);

/** The typical searches, each with a parameter that changes per run so caches do not flatter them. */
const SEARCHES: Array<[string, (i: number) => string]> = [
  ['newest, first page (50)', () => 'count=50&offset=0'],
  ['newest, deep page (500 @ 9500)', () => 'count=500&offset=9500'],
  ['by recipient', (i) => `count=50&offset=0&recipient=user${(i * 7919 + 13) % 100000}@example.net`],
  ['by recipient (Cc)', (i) => `count=50&offset=0&recipient=cc${(i * 97 + 4) % 50000}@example.org`],
  ['by tag, first page', (i) => `count=50&offset=0&tag=tag${i % 50}`],
  ['by tag, deep page (500 @ 9500)', (i) => `count=500&offset=9500&tag=tag${i % 50}`],
  ['by date range (one day)', (i) => `count=50&offset=0&fromdate=${day(1 + (i % 40))}&todate=${day(1 + (i % 40))}`],
  ['by date range, deep page', (i) => `count=500&offset=9500&fromdate=${day(1 + (i % 30))}&todate=${day(8 + (i % 30))}`],
  ['by tag + date range', (i) => `count=50&offset=0&tag=tag${i % 50}&fromdate=${day(1 + (i % 40))}&todate=${day(3 + (i % 40))}`],
  ['by sender', (i) => `count=50&offset=0&fromemail=sender${i % 5}@example.com`],
  ['by status (bounced)', () => 'count=50&offset=0&status=bounced'],
  ['by status (queued), deep page', () => 'count=500&offset=9500&status=queued'],
  ['by recipient + tag', (i) => `count=50&offset=0&recipient=user${(i * 7919 + 13) % 100000}@example.net&tag=tag${(i * 7919 + 13) % 50}`],
  ['by recipient + date range', (i) => `count=50&offset=0&recipient=user${(i * 7919 + 13) % 100000}@example.net&fromdate=${day(0)}&todate=${day(20)}`],
];

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

async function run(dialect: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-search-'));
  const schema = `bench_search_${randomBytes(4).toString('hex')}`;
  const admin = dialect === 'postgres' ? new pg.Client({ connectionString: PG_URL }) : null;
  if (admin) {
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    // Interrupted half-way, the benchmark still leaves no schema behind.
    process.once('SIGINT', () => void admin.query(`drop schema if exists ${schema} cascade`).finally(() => process.exit(130)));
  }
  const config = loadConfig({ MAILROOM_DATABASE_URL: admin ? PG_URL : join(dir, 'mailroom.db'), MAILROOM_LOG_LEVEL: 'silent', MAILROOM_SERVER_TOKEN: TOKEN });
  const ctx = createContext(config, { dbOptions: admin ? { schema, poolSize: 4 } : {}, secretKey: 'bench-secret-key-bench-secret-key-0123456789' });
  try {
    await migrateToLatest(ctx.database);
    await bootstrap(ctx.database, config, Date.now());
    const servers = await ctx.db.selectFrom('servers').select(['id', 'account_id']).orderBy('id').execute();
    const other = await ctx.db.insertInto('servers').values({ account_id: servers[0].account_id, name: 'Other', created_at: Date.now() }).returning('id').executeTakeFirstOrThrow();
    const t = Date.now();
    // PostgreSQL: the day partitions of the loaded days, as the periodic task makes them when mail arrives
    // (no-op on SQLite).
    await createPartitionsBetween(ctx.db, T0, T0 + N * STEP);
    for (const q of loadSql(ctx, servers[0].id, other.id, N)) await q.execute(ctx.db);
    // PostgreSQL: what autovacuum does to freshly inserted tables soon after (statistics, and the visibility
    // map that index-only scans rely on). SQLite is measured as it runs in production, without ANALYZE.
    if (admin) await sql`vacuum analyze messages, message_recipients`.execute(ctx.db);
    console.log(`\n${dialect}: loaded ${N.toLocaleString('en')} messages (+${Math.round(N * 1.25).toLocaleString('en')} recipients) in ${((Date.now() - t) / 1000).toFixed(1)} s`);

    const app = await buildApp(ctx);
    const get = async (url: string) => {
      const started = performance.now();
      const r = await app.inject({ method: 'GET', url, headers: { 'x-service-server-token': TOKEN, accept: 'application/json' } });
      const ms = performance.now() - started;
      if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
      return { ms, body: r.json() as { TotalCount: number; Messages?: unknown[] } };
    };
    const measure = async (name: string, url: (i: number) => string) => {
      for (let i = 0; i < 3; i++) await get(url(1000 + i)); // warm-up
      const times: number[] = [];
      let total = 0;
      for (let i = 0; i < RUNS; i++) {
        const r = await get(url(i));
        times.push(r.ms);
        total = r.body.TotalCount;
      }
      const p95 = pct(times, 95);
      console.log(`  ${name.padEnd(34)} p50 ${pct(times, 50).toFixed(1).padStart(6)} ms   p95 ${p95.toFixed(1).padStart(6)} ms ${p95 < TARGET_P95 ? '  ' : '!!'}  (TotalCount e.g. ${total})`);
    };
    await measure('floor: one message by id (dump)', (i) => `/messages/${benchMessageId(1 + 20 * ((i * 7) % Math.floor(N / 20)))}/dump`);
    for (const [name, q] of SEARCHES) await measure(name, (i) => `/messages?${q(i)}`);
    await app.close();
  } finally {
    await ctx.close();
    if (process.env.BENCH_KEEP) console.log(`  kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
    if (admin && process.env.BENCH_KEEP) console.log(`  kept schema ${schema}`);
    else if (admin) {
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
  }
}

console.log(`bench/search: ${N.toLocaleString('en')} messages, ${RUNS} runs per search, target p95 < ${TARGET_P95} ms (TotalCount is exact up to 10,000)`);
for (const d of DBS) await run(d.trim());
// A pg pool or client handle left by a failed step must not keep a finished benchmark waiting.
process.exit(0);
