// bench/store-10m: the store at volume (issue 25): a database filled to N messages through the real
// accepting path, then what an operator feels at that size, on SQLite and on PostgreSQL.
//   npm run bench:store -- [--messages 10000000] [--db sqlite,postgres] [--runs 40]
// Fill: bulk requests (POST /email/bulk's domain call, submitBulk) of up to 100,000 recipients each, expanded
// by the 'bulk-expand' jobs (expandPage, one after another as one worker would): the fastest real path, with
// every row the sending path writes (message, recipients, Processed event, statistics, delivery jobs). The
// messages are spread over the 45 days of the default retention, with the injected clock set to each day, so
// ids, received_at and PostgreSQL's day partitions are those of mail sent over 45 days. Delivery is not run:
// each day's delivery jobs are deleted and its messages marked Sent with settled recipients, as the delivery
// of a sink would leave them (its Delivered events are not written; the figures are for the message tables).
// Then, printed beside its ceiling: search p95 (GET /messages/outbound through app.inject; target < 50 ms;
// ceiling: one message by id), a console Activity page's server time, the retention purge of the oldest day
// (partition drop on PostgreSQL, row deletes on SQLite), bytes per stored message, and `mailroom backup`
// (SQLite: VACUUM INTO, what the command runs; PostgreSQL: the backup is pg_dump, timed when it is installed).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { bootstrap } from '../src/domain/accounts/bootstrap.js';
import { submitBulk } from '../src/domain/bulk/accept.js';
import { expandPage } from '../src/domain/bulk/expand.js';
import { BULK_DELIVER_QUEUE, BULK_EXPAND_QUEUE } from '../src/domain/bulk/jobs.js';
import { signIn } from '../src/domain/console-users/sessions.js';
import { addUser } from '../src/domain/console-users/users.js';
import { purgeExpired } from '../src/domain/retention/purge.js';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { ManualClock } from '../src/infra/clock.js';
import { backupSqlite } from '../src/infra/db/backup.js';
import { migrateToLatest } from '../src/infra/db/migrate.js';
import { createPartitionsBetween } from '../src/infra/db/partitions.js';
import { buildApp } from '../src/http/app.js';

const { values: args } = parseArgs({ options: { messages: { type: 'string' }, db: { type: 'string' }, runs: { type: 'string' } } });
const N = Number(args.messages ?? 10_000_000);
const DBS = (args.db ?? 'sqlite,postgres').split(',');
const RUNS = Number(args.runs ?? 40);
const PG_URL = process.env.MAILROOM_BENCH_PG_URL ?? process.env.MAILROOM_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TOKEN = 'bench-server-token-000000000000001';
const FROM = 'news@store.example';
const DAYS = 45;
const DAY = 86_400_000;
const PER_REQUEST = 100_000;
/** Distinct recipient addresses: about ten messages each over the 45 days at 10M (a list of a million). */
const ADDRESSES = Math.max(1000, Math.floor(N / 10));
const address = (i: number) => `u${i % ADDRESSES}@d${i % 100}.example`;
const TAGS = ['news', 'digest', 'promo', 'product', 'events'];

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

async function run(dialect: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-bench-store-'));
  const schema = `bench_store_${randomBytes(4).toString('hex')}`;
  const admin = dialect === 'postgres' ? new pg.Client({ connectionString: PG_URL }) : null;
  if (admin) {
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    process.once('SIGINT', () => void admin.query(`drop schema if exists ${schema} cascade`).finally(() => process.exit(130)));
  }
  const file = join(dir, 'mailroom.db');
  const config = loadConfig({ MAILROOM_DATABASE_URL: admin ? PG_URL : file, MAILROOM_LOG_LEVEL: 'silent', MAILROOM_SERVER_TOKEN: TOKEN });
  // Day 0 is 45 days before today: the purge below runs on day 46, when day 0 has just expired.
  const start = Math.floor(Date.now() / DAY) * DAY - DAYS * DAY;
  const clock = new ManualClock(start);
  const ctx = createContext(config, { clock, dbOptions: admin ? { schema, poolSize: 4 } : {}, secretKey: 'bench-secret-key-bench-secret-key-0123456789' });
  // Printed as measured: a figure is not lost when a later step fails.
  const rows = {
    push([a, b, c]: [string, string, string]) {
      console.log(`| ${a} | ${b} | ${c} |  (load ${load()})`);
    },
  };
  try {
    await migrateToLatest(ctx.database);
    await bootstrap(ctx.database, config, start);
    await createPartitionsBetween(ctx.db, start, start + (DAYS + 1) * DAY);
    const server = await ctx.db.selectFrom('servers').select(['id', 'account_id']).orderBy('id').executeTakeFirstOrThrow();
    const domain = await ctx.db.insertInto('domains').values({ account_id: server.account_id, name: 'store.example', created_at: start }).returning('id').executeTakeFirstOrThrow();
    await ctx.db.insertInto('sender_signatures').values({ account_id: server.account_id, domain_id: domain.id, email: FROM, name: 'News', confirmed: 1, created_at: start }).execute();
    const auth = { accountId: server.account_id, serverId: server.id, testMode: false };

    // --- fill ------------------------------------------------------------------------------------------
    console.log(`\n${dialect}: filling to ${fmt(N)} messages over ${DAYS} days (load ${load()})`);
    console.log('| | figure | ceiling / context in this run |\n|---|---|---|');
    const t0 = performance.now();
    let expandMs = 0;
    let filled = 0;
    const perDay: number[] = [];
    for (let d = 0; d < DAYS; d++) {
      const dayTarget = Math.floor(((d + 1) * N) / DAYS) - Math.floor((d * N) / DAYS);
      perDay.push(dayTarget);
      for (let k = 0; k < dayTarget; k += PER_REQUEST) {
        const count = Math.min(PER_REQUEST, dayTarget - k);
        clock.set(start + d * DAY + 8 * 3_600_000 + k);
        const Messages = Array.from({ length: count }, (_, j) => ({ To: address(filled + j), TemplateModel: { name: `Reader ${filled + j}` } }));
        const body = { From: `News <${FROM}>`, Subject: 'Your {{name}} digest', TextBody: 'Hello {{name}}, here is the news.', HtmlBody: '<p>Hello {{name}}, here is <a href="https://example.net/n">the news</a>.</p>', Tag: TAGS[d % TAGS.length], Messages };
        const { Id } = await submitBulk(ctx, auth, body);
        const jobs = await ctx.db.selectFrom('jobs').selectAll().where('queue', '=', BULK_EXPAND_QUEUE).orderBy('id').execute();
        const te = performance.now();
        for (const job of jobs) await expandPage(ctx, job);
        expandMs += performance.now() - te;
        // As a delivery to a sink would leave them: sent, recipients settled, no job left.
        await ctx.db.deleteFrom('jobs').where('queue', '=', BULK_DELIVER_QUEUE).execute();
        const ids = ctx.db.selectFrom('messages').select('id').where('bulk_id', '=', Id);
        await ctx.db.updateTable('message_recipients').set({ status: 'Sent', settled_at: clock.now() }).where('message_id', 'in', ids).execute();
        await ctx.db.updateTable('messages').set({ status: 'Sent' }).where('bulk_id', '=', Id).execute();
        filled += count;
      }
      if ((d + 1) % 5 === 0) console.log(`  day ${d + 1}: ${fmt(filled)} messages, ${((performance.now() - t0) / 1000).toFixed(0)} s, load ${load()}`);
    }
    const fillS = (performance.now() - t0) / 1000;
    rows.push(['fill through bulk expansion', `${fmt(N / fillS)} msg/s overall (${fmt(N)} in ${fillS.toFixed(0)} s)`, `expansion alone: ${fmt(N / (expandMs / 1000))} msg/s`]);
    if (admin) await sql`vacuum analyze`.execute(ctx.db);
    else await sql`pragma wal_checkpoint(TRUNCATE)`.execute(ctx.db);

    // --- bytes per message ------------------------------------------------------------------------------
    let bytes: number;
    if (admin) {
      const r = await admin.query(
        `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as b from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind in ('r', 'm')`,
        [schema],
      );
      bytes = Number(r.rows[0].b);
    } else bytes = statSync(file).size;
    rows.push(['bytes per stored message (all tables and indexes)', `${fmt(bytes / N)} B (${(bytes / 1024 ** 3).toFixed(2)} GiB)`, '']);

    // --- search and console ------------------------------------------------------------------------------
    clock.set(start + DAYS * DAY);
    const app = await buildApp(ctx);
    await addUser(ctx.db, { email: 'bench@example.com', role: 'admin', password: 'bench password 1' }, clock.now());
    const session = await signIn(ctx.db, 'bench@example.com', 'bench password 1', clock.now());
    if (session.kind !== 'ok') throw new Error('sign-in failed');
    const cookie = `mailroom_session=${session.cookieValue}`;
    const anyId = (await ctx.db.selectFrom('messages').select('id').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()).id;
    const get = async (url: string, api: boolean) => {
      const t = performance.now();
      const r = await app.inject({ method: 'GET', url, headers: api ? { 'x-service-server-token': TOKEN, accept: 'application/json' } : { cookie } });
      const ms = performance.now() - t;
      if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
      return ms;
    };
    const measure = async (name: string, url: (i: number) => string, api = true) => {
      for (let i = 0; i < 3; i++) await get(url(RUNS + i), api);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await get(url(i), api));
      return { name, p50: pct(times, 50), p95: pct(times, 95) };
    };
    const dayOf = (i: number) => new Date(start + (i % DAYS) * DAY).toISOString().slice(0, 10);
    const floor = await measure('one message by id', () => `/messages/outbound/${anyId}/details`);
    const searches = [
      await measure('newest, first page (50)', () => '/messages/outbound?count=50&offset=0'),
      await measure('by recipient', (i) => `/messages/outbound?count=50&offset=0&recipient=${encodeURIComponent(address(i * 7919))}`),
      await measure('by tag, first page', (i) => `/messages/outbound?count=50&offset=0&tag=${TAGS[i % TAGS.length]}`),
      await measure('by date range (one day)', (i) => `/messages/outbound?count=50&offset=0&fromdate=${dayOf(i)}&todate=${dayOf(i)}`),
    ];
    for (const s of searches) rows.push([`search p95: ${s.name}`, `${s.p95.toFixed(1)} ms (p50 ${s.p50.toFixed(1)})${s.p95 < 50 ? '' : ' !! over 50 ms'}`, `one message by id: p95 ${floor.p95.toFixed(1)} ms`]);
    const activity = await measure('console Activity', () => `/console/s/${server.id}/activity`, false);
    rows.push(['console Activity page, server time p95', `${activity.p95.toFixed(1)} ms (p50 ${activity.p50.toFixed(1)})`, `one message by id: p95 ${floor.p95.toFixed(1)} ms`]);
    await app.close();

    // --- backup ----------------------------------------------------------------------------------------------
    if (admin) {
      const out = join(dir, 'dump.pgc');
      try {
        const tb = performance.now();
        execFileSync('pg_dump', ['--format=custom', '--compress=1', `--schema=${schema}`, '--file', out, PG_URL], { stdio: ['ignore', 'ignore', 'pipe'] });
        const s = (performance.now() - tb) / 1000;
        rows.push(['backup: pg_dump -Fc of the schema (mailroom backup is SQLite-only)', `${s.toFixed(1)} s (${fmt(N / s)} msg/s, ${(statSync(out).size / 1024 ** 2).toFixed(0)} MB)`, '']);
      } catch (err) {
        rows.push(['backup: pg_dump', `skipped: ${(err as Error).message.split('\n')[0]}`, '']);
      }
    } else {
      const out = join(dir, 'backup.db');
      const tb = performance.now();
      await backupSqlite(ctx.database, out);
      const s = (performance.now() - tb) / 1000;
      rows.push(['`mailroom backup` (VACUUM INTO)', `${s.toFixed(1)} s (${fmt(N / s)} msg/s, ${(statSync(out).size / 1024 ** 2).toFixed(0)} MB)`, '']);
    }

    // --- retention: day 0 expires on day 45 ----------------------------------------------------------------
    // The retention task runs every 15 minutes; on SQLite each run deletes a bounded number of rows (batches
    // per stream), so it is run here until the day is gone, as the task's next runs would, and timed in all.
    const count = async () => Number((await ctx.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    clock.set(start + (DAYS + 1) * DAY);
    let ps = 0;
    let runs = 0;
    let partitions = 0;
    let left = before;
    for (;;) {
      const tp = performance.now();
      const purged = await purgeExpired(ctx, clock.now());
      ps += (performance.now() - tp) / 1000;
      runs++;
      partitions += purged.partitions;
      const now = await count();
      if (now === left || before - now >= perDay[0]) {
        left = now;
        break;
      }
      left = now;
    }
    const gone = before - left;
    const how = partitions > 0 ? `${partitions} day partition(s) dropped` : `rows deleted in ${runs} run(s) of the retention task`;
    rows.push(['retention purge of the oldest day', `${fmt(gone)} messages in ${ps.toFixed(2)} s = ${fmt(gone / ps)} msg/s (${how})`, `one day: ${fmt(perDay[0])} messages`]);
    if (gone !== perDay[0]) throw new Error(`the purge removed ${gone} messages, the oldest day held ${perDay[0]}`);

    console.log(`${dialect}, ${fmt(N)} messages: done (load ${load()} on 2 shared CPUs)`);
  } finally {
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
    if (admin) {
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
  }
}

for (const d of DBS) await run(d);
