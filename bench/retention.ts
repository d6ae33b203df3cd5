// bench/retention: the retention purge over a backlog of expired messages on SQLite, where its statements run
// on the event loop. Loads N messages (each with one recipient and one Processed event, as accepting writes)
// received 60 days ago for the bootstrap server (45-day retention), then runs one purgeExpired while the event
// loop's delay is sampled, and prints messages deleted per second and the loop's delay p99 / max beside its
// ceiling: the same loop's delay over an idle second measured in the same run.
//   npx tsx bench/retention.ts [--messages 200000]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { bootstrap } from '../src/domain/accounts/bootstrap.js';
import { purgeExpired } from '../src/domain/retention/purge.js';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { ManualClock } from '../src/infra/clock.js';
import { migrateToLatest } from '../src/infra/db/migrate.js';
import { benchDatabase } from './bench-db.js';

const { values: args } = parseArgs({ options: { messages: { type: 'string' } } });
const N = Number(args.messages ?? 200_000);
const DAY = 86_400_000;

const db = (await benchDatabase('sqlite', 'retention'))!;
const config = loadConfig({ MAILROOM_DATABASE_URL: db.url, MAILROOM_LOG_LEVEL: 'silent', MAILROOM_ACCOUNT_TOKEN: 'bench-account-token-0000000000000001', MAILROOM_SERVER_TOKEN: 'bench-server-token-00000000000000001' });
const clock = new ManualClock(Date.now());
const ctx = createContext(config, { clock, dbOptions: db.dbOptions });
await migrateToLatest(ctx.database);
await bootstrap(ctx.database, config, clock.now());
const server = await ctx.db.selectFrom('servers').select('id').executeTakeFirstOrThrow();

const old = clock.now() - 60 * DAY;
const t0 = performance.now();
for (let i = 0; i < N; i += 1000) {
  await ctx.db.transaction().execute(async (trx) => {
    const n = Math.min(1000, N - i);
    const ids = Array.from({ length: n }, (_, k) => `r-${String(i + k).padStart(9, '0')}`);
    const at = (k: number) => old + i + k;
    const message = (id: string, k: number) => ({ id, server_id: server.id, stream_id: 'outbound', from_email: 'a@bench.example', from_raw: 'a@bench.example', subject: 'Your receipt', tag: 'receipt', html_body: '<p>Thanks for your order</p>'.repeat(20), text_body: 'Thanks for your order. '.repeat(20), reply_to: null, headers: '[]', metadata: '{}', track_opens: 0, track_links: 'None', attachments: '[]', status: 'Sent', received_at: at(k), mime: null });
    for (let k = 0; k < n; k += 200) await trx.insertInto('messages').values(ids.slice(k, k + 200).map((id, j) => message(id, k + j))).execute();
    for (let k = 0; k < n; k += 300) await trx.insertInto('message_recipients').values(ids.slice(k, k + 300).map((id, j) => ({ message_id: id, server_id: server.id, stream_id: 'outbound', kind: 'To' as const, email: `r${i + k + j}@dest.example`, name: '', status: 'Sent', received_at: at(k + j), settled_at: at(k + j) }))).execute();
    for (let k = 0; k < n; k += 300) await trx.insertInto('message_events').values(ids.slice(k, k + 300).map((id, j) => ({ message_id: id, server_id: server.id, stream_id: 'outbound', type: 'Processed', recipient: `r${i + k + j}@dest.example`, occurred_at: at(k + j), details: '{}' }))).execute();
  });
}
console.log(`loaded ${N.toLocaleString('en')} expired messages in ${((performance.now() - t0) / 1000).toFixed(1)} s (load ${loadavg()[0]!.toFixed(1)})`);

const idle = monitorEventLoopDelay({ resolution: 5 });
idle.enable();
await new Promise((r) => setTimeout(r, 1000));
idle.disable();

const h = monitorEventLoopDelay({ resolution: 5 });
h.enable();
const t1 = performance.now();
const counts = await purgeExpired(ctx, clock.now());
const seconds = (performance.now() - t1) / 1000;
h.disable();
const ms = (v: number) => (v / 1e6).toFixed(1);
console.log(`purged ${counts.messages.toLocaleString('en')} messages in ${seconds.toFixed(1)} s: ${Math.round(counts.messages / seconds).toLocaleString('en')} messages/s (10M a day needs 116/s)`);
console.log(`event loop delay during the purge: p99 ${ms(h.percentile(99))} ms, max ${ms(h.max)} ms; ceiling (idle, same run): p99 ${ms(idle.percentile(99))} ms, max ${ms(idle.max)} ms; load ${loadavg()[0]!.toFixed(1)}`);
await ctx.close();
await db.drop();
