// bench/mailpit-counts: what the kept Mailpit figures (migration 0038) cost concurrent accepts on PostgreSQL,
// with each connection adding to rows of its own (slot = backend pid, as shipped) against every transaction
// adding to one row per server (the trigger functions rewritten with slot 0), and without the triggers
// (the floor). BENCH_WRITERS connections (default 8) each commit BENCH_TX transactions (default 60) of
// BENCH_BATCH Sandbox messages (default 20) with their recipients, all into one server; variants alternate,
// BENCH_ROUNDS times (default 2).
//   npx tsx bench/mailpit-counts.ts
import { execSync } from 'node:child_process';
import { sql, type Kysely } from 'kysely';
import { createPartitionsBetween } from '../src/infra/db/partitions.js';
import { openSearchBench } from './bench-db.js';
import { loadSql, STEP, T0 } from './search-data.js';

const WRITERS = Number(process.env.BENCH_WRITERS ?? 8);
const TX = Number(process.env.BENCH_TX ?? 60);
const BATCH = Number(process.env.BENCH_BATCH ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const FUNCTIONS = ['messages_insert', 'messages_delete', 'message_update', 'state_insert', 'state_update', 'state_delete'];
const TRIGGERS: Array<[string, string]> = [
  ['mailpit_counts_insert', 'messages'],
  ['mailpit_counts_delete', 'messages'],
];

const b = await openSearchBench('postgres', 'mpcounts', WRITERS + 2, 'bench-server-token-000000000000001');
const db = b.ctx.db as Kysely<any>;
await db.updateTable('servers').set({ delivery_type: 'Sandbox' }).where('id', '=', b.serverId).execute();
const total = (ROUNDS * 3 + 1) * WRITERS * TX * BATCH;
await createPartitionsBetween(db, T0, T0 + total * STEP);
const shipped = new Map<string, string>();
for (const f of FUNCTIONS) {
  const r = await sql<{ d: string }>`select pg_get_functiondef(${`mailpit_counts_${f}`}::regproc) as d`.execute(db);
  shipped.set(f, r.rows[0]!.d);
}

async function variant(v: 'slots' | 'one row' | 'no triggers') {
  for (const d of shipped.values()) await sql.raw(v === 'one row' ? d.replace(/pg_backend_pid\(\)/g, '0') : d).execute(db);
  for (const [t, table] of TRIGGERS) await sql.raw(`alter table ${table} ${v === 'no triggers' ? 'disable' : 'enable'} trigger ${t}`).execute(db);
}

let next = 1;
let deadlocks = 0;
async function run(v: 'slots' | 'one row' | 'no triggers', label: string = v): Promise<void> {
  await variant(v);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      for (let i = 0; i < TX; i++) {
        const from = next;
        next += BATCH;
        // Only server A's rows (sandbox) are wanted: loadSql gives every 20th to server B, also fine.
        const [messages, to] = loadSql(b.ctx, b.serverId, b.otherId, from + BATCH - 1, { sandboxA: true, from });
        for (;;) {
          try {
            await db.transaction().execute(async (trx) => {
              await messages!.execute(trx);
              await to!.execute(trx);
            });
            break;
          } catch (err) {
            // One row per figure: two transactions adding to two tags in opposite orders deadlock.
            if ((err as { code?: string }).code !== '40P01') throw err;
            deadlocks++;
          }
        }
      }
    }),
  );
  const s = (performance.now() - started) / 1000;
  const n = WRITERS * TX * BATCH;
  const d = deadlocks;
  deadlocks = 0;
  const load = execSync('uptime').toString().trim().replace(/^.*load average: /, '');
  console.log(`| ${label} | ${Math.round(n / s).toLocaleString('en')} msg/s | ${Math.round((WRITERS * TX) / s)} tx/s | ${s.toFixed(1)} s | ${d} | ${load} |`);
}

console.log(`bench/mailpit-counts: ${WRITERS} writers x ${TX} transactions x ${BATCH} Sandbox messages, one server\n`);
console.log('| variant | messages | transactions | wall | deadlocks retried | load |');
console.log('|---|---|---|---|---|---|');
await run('slots', 'slots (warm-up)');
for (let r = 0; r < ROUNDS; r++) for (const v of ['slots', 'one row', 'no triggers'] as const) await run(v);
await variant('slots');
const check = await sql<{ n: string; k: string }>`select sum(n) as n, count(*) as k from mailpit_counts where server_id = ${b.serverId} and tag = ''`.execute(db);
const real = await sql<{ n: string }>`select count(*) as n from messages where server_id = ${b.serverId} and sandbox = 1`.execute(db);
console.log(`\nkept total ${check.rows[0]!.n} (${check.rows[0]!.k} rows) against counted ${real.rows[0]!.n} (the 'no triggers' runs are not kept)`);
await b.ctx.close();
await b.database.drop();
process.exit(0);
