// Every hot query uses its index whatever the planner statistics say (issue 20, item 4). The hot paths run
// for real (accepting over HTTP, claiming, loading and settling deliveries to a loopback SMTP sink, search,
// the webhook queue, tracking hits) against tables holding 50,000 recipients that were NEVER analyzed, with
// autovacuum off for them, so PostgreSQL plans from its defaults alone. Every statement those paths send is
// recorded and EXPLAINed with its real parameters: none may scan a big table, and the statements named in
// HOT_QUERIES must use the index named there. A second pass runs ANALYZE while the queue is in a misleading
// state (every recipient unsettled) and then doubles the tables: stale statistics, the case seen
// in production (issue 20: 32 ms against 1.5 ms per call), must not change a plan either.
// On SQLite the same statements go through EXPLAIN QUERY PLAN (no sqlite_stat1: SQLite's planner uses no
// statistics unless ANALYZE wrote them, so it is checked once).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { openUrl, clickUrl } from '../../../src/domain/tracking/tokens.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { TEST_DIALECT } from '../../helpers/database.js';

/** Tables that grow with traffic: no hot statement may read one of them whole. */
const BIG_TABLES = ['messages', 'message_recipients', 'message_events', 'jobs', 'webhook_notifications', 'webhook_attempts', 'opens', 'clicks', 'bounces', 'message_attachments', 'suppressions'];

/**
 * The hot queries, in one place: a pattern recognising the statement's SQL (as the code sends it), the big
 * table it reads and the index it must read it through. Every one must have been seen during the run, so a
 * changed statement that no longer matches fails here instead of going unchecked.
 */
const HOT_QUERIES: Array<{ name: string; sql: RegExp; table: string; index: string }> = [
  { name: 'claim due jobs (infra/jobs/claim)', sql: /^update jobs set locked_by/, table: 'jobs', index: 'jobs_due' },
  { name: 'delivery load: recipients (delivery/load)', sql: /^select "id", "message_id", "kind", "email", "name", "settled_at" from "message_recipients"/, table: 'message_recipients', index: 'recipients_message' },
  { name: 'delivery load: messages (delivery/load)', sql: /^select "messages"\."id", "messages"\."server_id", "messages"\."stream_id", "messages"\."from_email", "messages"\."from_raw", "messages"\."reply_to"/, table: 'messages', index: 'messages_pkey' },
  { name: 'delivery load: attachments (delivery/load)', sql: /^select "message_id", "name", "content_type", "content_id", "content" from "message_attachments" where "message_id" in/, table: 'message_attachments', index: 'message_attachments_pk' },
  { name: 'outcome: open recipients (delivery/outcome)', sql: /^select "id" from "message_recipients" where "id" in/, table: 'message_recipients', index: 'message_recipients_pkey' },
  { name: 'outcome: attachment content dropped (delivery/outcome)', sql: /^update "message_attachments" set "content" = (?:\$1|\?) where "message_id" in/, table: 'message_attachments', index: 'message_attachments_pk' },
  { name: 'search: recipients of a page (messages/view)', sql: /^select "message_id", "kind", "email", "name" from "message_recipients" where "message_id" in/, table: 'message_recipients', index: 'recipients_message' },
  { name: 'accepting: suppressed recipients (accepting/checks)', sql: /^select "server_id", "stream_id", "email" from "suppressions" where "email" in/, table: 'suppressions', index: 'suppressions_email' },
  { name: 'webhook queue: notifications to post (webhooks/deliver)', sql: /^select "n"\."id", "n"\."webhook_id"/, table: 'webhook_notifications', index: 'webhook_notifications_pkey' },
  { name: 'tracking: the message of a hit (tracking/record-hit)', sql: /^select "server_id", "stream_id", "tag", "metadata" from "messages" where "id" = /, table: 'messages', index: 'messages_pkey' },
  { name: 'outcome: finishIfSettled (delivery/outcome)', sql: /^select distinct "message_id" from "message_recipients" where "message_id" in \(.*\) and "settled_at" is null$/, table: 'message_recipients', index: 'recipients_message' },
];

interface Recorded {
  sql: string;
  parameters: unknown[];
  area: string;
  /** The SET LOCAL statements in force on its connection when it ran (PostgreSQL; db/planner.ts). */
  settings: string[];
}

/**
 * Records every statement the process sends to the database while `area` is set, at the driver (pg's
 * Client.query, better-sqlite3's Statement), so that statements of parts built before the test (the
 * outcome batcher, the runner) are seen as sent, parameters included.
 */
class Recorder {
  area: string | null = null;
  readonly seen: Recorded[] = [];
  private undo: Array<() => void> = [];
  install(): void {
    const local = new WeakMap<object, string[]>();
    const record = (text: unknown, parameters: unknown, connection?: object) => {
      if (typeof text !== 'string') return;
      if (connection) {
        // Follow the transaction's SET LOCALs, so the statement is explained under the settings it ran with.
        if (/^\s*(begin|commit|rollback)\b/i.test(text)) local.set(connection, []);
        else if (/^\s*set local /i.test(text)) local.set(connection, [...(local.get(connection) ?? []), text]);
      }
      if (this.area) this.seen.push({ sql: text, parameters: Array.isArray(parameters) ? parameters : [], area: this.area, settings: connection ? [...(local.get(connection) ?? [])] : [] });
    };
    const client = pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
    const query = client.query;
    client.query = function (this: object, config: unknown, values?: unknown, ...rest: unknown[]) {
      if (typeof config === 'string') record(config, values, this);
      else if (config && typeof config === 'object' && 'text' in config) record((config as { text: string }).text, (config as { values?: unknown[] }).values ?? values, this);
      return query.call(this, config, values, ...rest);
    };
    this.undo.push(() => (client.query = query));
    const probe = new SQLite(':memory:');
    const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...a: unknown[]) => unknown>;
    probe.close();
    for (const name of ['all', 'get', 'run', 'iterate']) {
      const original = statement[name]!;
      statement[name] = function (this: { source: string }, ...args: unknown[]) {
        record(this.source, args.length === 1 && Array.isArray(args[0]) ? args[0] : args);
        return original.apply(this, args);
      };
      this.undo.push(() => (statement[name] = original));
    }
  }
  uninstall(): void {
    for (const u of this.undo.splice(0)) u();
  }
}

const MESSAGES = 25_000; // two recipients each: 50,000 recipient rows

/** Fills the big tables with settled history, in a handful of INSERT ... SELECT statements (both dialects). */
async function fillHistory(s: TestService, from: number, count: number): Promise<void> {
  const db = s.ctx.db;
  const t0 = s.clock.now() - 86_400_000;
  const seq = (n: number) => sql`with recursive n(i) as (select ${sql.lit(from)} union all select i + 1 from n where i < ${sql.lit(from + n - 1)})`;
  const id = sql`'00000000-0000-4000-8000-' || (100000000000 + i)`;
  const sid = sql.lit(s.serverId);
  await sql`${seq(count)} insert into messages (id, server_id, stream_id, from_email, from_raw, subject, tag, html_body, text_body, reply_to, headers, metadata, track_opens, track_links, attachments, status, sandbox, received_at, mime)
    select ${id}, ${sid}, 'outbound', 'sender@example.com', 'sender@example.com', 'Subject ' || i, 'tag' || (i % 50), null, 'Body', null, '[]', '{}', 0, 'None', '[]', 'Sent', 0, ${sql.lit(t0)} + i, null from n`.execute(db);
  for (const r of [0, 1]) {
    await sql`${seq(count)} insert into message_recipients (message_id, server_id, stream_id, kind, email, name, status, received_at, settled_at)
      select ${id}, ${sid}, 'outbound', 'To', 'rcpt' || i || '-' || ${sql.lit(r)} || '@example.net', '', 'Sent', ${sql.lit(t0)} + i, ${sql.lit(t0)} + i + 1000 from n`.execute(db);
    await sql`${seq(count)} insert into message_events (message_id, server_id, stream_id, type, recipient, occurred_at, details)
      select ${id}, ${sid}, 'outbound', 'Delivered', 'rcpt' || i || '-' || ${sql.lit(r)} || '@example.net', ${sql.lit(t0)} + i + 1000, '{}' from n`.execute(db);
  }
  // A queue with a backlog that is not due yet (retries an hour out): the claim must not read through it.
  await sql`${seq(Math.min(count, 5_000))} insert into jobs (queue, payload, run_at, attempts, group_key, created_at, message_id)
    select 'deliver', '{"messageId":"' || ${id} || '","domain":"example.net"}', ${sql.lit(s.clock.now() + 3_600_000)} + i, 1, 'example.net', ${sql.lit(t0)}, ${id} from n`.execute(db);
  // Attachments of one message in ten, their content dropped once delivered.
  await sql`${seq(count)} insert into message_attachments (message_id, position, name, content_type, content_id, content, size)
    select ${id}, 0, 'a.pdf', 'application/pdf', null, null, 1000 from n where i % 10 = 0`.execute(db);
  // A long suppression list: every accepted message checks its recipients against it.
  await sql`${seq(count)} insert into suppressions (server_id, stream_id, email, reason, origin, created_at)
    select ${sid}, 'outbound', 'gone' || i || '@example.net', 'HardBounce', 'Recipient', ${sql.lit(t0)} + i from n`.execute(db);
  // The webhook log: delivered notifications stay as history.
  await sql`${seq(count)} insert into webhook_notifications (webhook_id, server_id, event_id, record_type, payload, status, attempts, created_at, completed_at)
    select (select min(id) from webhooks), ${sid}, i, 'Delivery', '{}', 'delivered', 1, ${sql.lit(t0)} + i, ${sql.lit(t0)} + i + 10 from n`.execute(db);
  for (const table of ['opens', 'clicks'] as const) {
    const extra = table === 'clicks' ? sql`, original_link, link_hash, click_location` : sql``;
    const values = table === 'clicks' ? sql`, 'https://example.org/' || i, 'h' || i, 'HTML'` : sql``;
    await sql`${seq(Math.min(count, 10_000))} insert into ${sql.table(table)} (message_id, server_id, stream_id, recipient, tag, occurred_at, user_agent, client_name, client_company, client_family, os_name, os_company, os_family, platform${extra})
      select ${id}, ${sid}, 'outbound', 'rcpt' || i || '-0@example.net', null, ${sql.lit(t0)} + i + 2000, 'ua', 'c', 'c', 'c', 'o', 'o', 'o', 'Desktop'${values} from n`.execute(db);
  }
}

async function keepStatisticsAsTheyAre(s: TestService): Promise<void> {
  if (TEST_DIALECT !== 'postgres') return;
  // A partitioned table (migration 0023) takes no storage parameters: its partitions do.
  const parts = await sql<{ name: string }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r'`.execute(s.ctx.db);
  const partitioned = await sql<{ name: string }>`select relname as name from pg_class where relnamespace = current_schema()::regnamespace and relkind = 'p'`.execute(s.ctx.db);
  const tables = [...BIG_TABLES.filter((t) => !partitioned.rows.some((r) => r.name === t)), ...parts.rows.map((r) => r.name)];
  for (const t of tables) await sql`alter table ${sql.table(t)} set (autovacuum_enabled = false, toast.autovacuum_enabled = false)`.execute(s.ctx.db);
}

/** PostgreSQL: a partition's name -> its table's, a partition's index -> the table's index (migration 0023). */
async function partitionParents(s: TestService): Promise<Map<string, string>> {
  const r = await sql<{ child: string; parent: string }>`select c.relname as child, p.relname as parent from pg_inherits i
    join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent where c.relnamespace = current_schema()::regnamespace`.execute(s.ctx.db);
  return new Map(r.rows.map((x) => [x.child, x.parent]));
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function* walk(p: PlanNode): Generator<PlanNode> {
  yield p;
  for (const c of p.Plans ?? []) yield* walk(c);
}

/** The big tables a statement reads whole, and the indexes it reads through. */
async function planOf(s: TestService, q: CompiledQuery, settings: string[]): Promise<{ scans: string[]; indexes: string[]; text: string }> {
  if (TEST_DIALECT === 'postgres') {
    const r = await s.ctx.db.transaction().execute(async (trx) => {
      for (const setting of settings) await sql.raw(setting).execute(trx);
      return trx.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(CompiledQuery.raw(`explain (format json) ${q.sql}`, [...q.parameters]));
    });
    const root = r.rows[0]!['QUERY PLAN'][0]!.Plan;
    const parents = await partitionParents(s);
    const nodes = [...walk(root)].map((n) => ({
      ...n,
      'Relation Name': n['Relation Name'] && (parents.get(n['Relation Name']) ?? n['Relation Name']),
      'Index Name': n['Index Name'] && (parents.get(n['Index Name']) ?? n['Index Name']),
    }));
    return {
      scans: nodes.filter((n) => n['Node Type'] === 'Seq Scan' && BIG_TABLES.includes(n['Relation Name'] ?? '')).map((n) => n['Relation Name']!),
      indexes: nodes.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : [])),
      text: JSON.stringify(nodes.map((n) => [n['Node Type'], n['Relation Name'] ?? '', n['Index Name'] ?? ''])),
    };
  }
  const r = await s.ctx.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
  const details = r.rows.map((x) => x.detail);
  return {
    // "SCAN t" reads the table whole; "SCAN t USING (COVERING) INDEX i" reads an index whole, in order.
    scans: details.flatMap((d) => {
      const m = /^SCAN (\w+)(?! USING)/.exec(d);
      return m && BIG_TABLES.includes(m[1]!) && !/USING/.test(d) ? [m[1]!] : [];
    }),
    indexes: details.flatMap((d) => {
      const m = /USING (?:COVERING )?INDEX (\w+)|USING INTEGER PRIMARY KEY/.exec(d);
      return m ? [m[1] ?? 'rowid'] : [];
    }),
    text: JSON.stringify(details),
  };
}

describe('hot queries use their index on tables the planner knows nothing about', () => {
  let s: TestService;
  let sink: SmtpSink;
  let hooks: WebhookReceiver;
  const rec = new Recorder();

  before(async () => {
    sink = await startSmtpSink();
    hooks = await startWebhookReceiver();
    // Pristine: a reused database would carry the row counts and pages of the file that used it before.
    s = await startService({ pristineDatabase: true, env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await addConfirmedSender(s, 'sender@example.com');
    const hook = await s.request('POST', '/webhooks', { body: { Url: `${hooks.url}/hook`, Triggers: { Delivery: { Enabled: true }, Open: { Enabled: true }, Click: { Enabled: true } } } });
    assert.equal(hook.status, 200, hook.text);
    await keepStatisticsAsTheyAre(s);
    await fillHistory(s, 1, MESSAGES);
    rec.install();
  });
  after(async () => {
    rec.uninstall();
    // The sink and receiver are closed even when dropping the schema fails (the shared server can run out of
    // lock slots), so that a failed run ends instead of hanging on their open sockets.
    try {
      await s?.close();
    } finally {
      await sink?.close();
      await hooks?.close();
    }
  });

  async function runHotPaths(round: number): Promise<string[]> {
    const ids: string[] = [];
    rec.area = 'accepting';
    for (let i = 0; i < 3; i++) {
      const r = await s.request('POST', '/email', { body: { From: 'sender@example.com', To: `new${round}-${i}@example.net, other${i}@example.org`, Subject: 'Hi', TextBody: 'x', Tag: 'welcome', TrackOpens: true, Attachments: [{ Name: 'a.txt', Content: 'aGVsbG8=', ContentType: 'text/plain' }] } });
      assert.equal(r.status, 200, r.text);
      ids.push(r.body.MessageID);
    }
    // A batch as large as a runner claim (64 jobs): delivery loads and settles them together.
    const batch = await s.request('POST', '/email/batch', { body: Array.from({ length: 150 }, (_, i) => i).map((i) => ({ From: 'sender@example.com', To: `batch${round}-${i}@example.net`, Subject: 'B', TextBody: 'x' })) });
    assert.equal(batch.status, 200, batch.text);
    rec.area = 'delivery and webhooks';
    // Due jobs after the not-yet-due backlog: the claim reads the due ones by jobs_due, not the backlog.
    await s.drain();
    s.clock.advance(60_000);
    rec.area = 'search';
    for (const q of ['', '&recipient=rcpt17-0@example.net', '&tag=tag7', '&fromemail=sender@example.com', '&status=sent']) {
      const r = await s.request('GET', `/messages/outbound?count=50&offset=0${q}`);
      assert.equal(r.status, 200, r.text);
    }
    assert.equal((await s.request('GET', '/messages/outbound?count=50&offset=400')).status, 200);
    assert.equal((await s.request('GET', `/messages/outbound/${ids[0]}/details`)).status, 200);
    rec.area = 'tracking';
    const open = await fetch(openUrl(s.ctx, { messageId: ids[0]!, recipient: `new${round}-0@example.net` }).replace(s.ctx.config.publicUrl, s.url));
    assert.equal(open.status, 200);
    const click = await fetch(clickUrl(s.ctx, { messageId: ids[0]!, recipient: `new${round}-0@example.net`, link: 'https://example.org/x', location: 'HTML' }).replace(s.ctx.config.publicUrl, s.url), { redirect: 'manual' });
    assert.equal(click.status, 302);
    rec.area = 'delivery and webhooks';
    await s.drain();
    rec.area = null;
    return ids;
  }

  async function checkPlans(label: string): Promise<void> {
    const problems: string[] = [];
    const matched = new Set<string>();
    const seen = new Set<string>();
    for (const r of rec.seen.splice(0)) {
      const q = CompiledQuery.raw(r.sql, r.parameters);
      const text = q.sql.replace(/\s+/g, ' ').trim();
      const key = text + JSON.stringify(q.parameters) + r.settings.join();
      if (!/^(select|update|delete|with)/i.test(text) || seen.has(key)) continue;
      seen.add(key);
      const plan = await planOf(s, q, r.settings);
      if (process.env.HOT_QUERIES_VERBOSE) console.log(r.area, text.slice(0, 160), plan.text);
      if (plan.scans.length > 0) problems.push(`${r.area}: reads ${plan.scans.join(', ')} whole: ${text.slice(0, 300)} -> ${plan.text}`);
      for (const h of HOT_QUERIES) {
        if (!h.sql.test(text)) continue;
        matched.add(h.name);
        if (plan.indexes.includes(h.index) || (TEST_DIALECT === 'sqlite' && plan.indexes.length > 0)) continue;
        problems.push(`${h.name}: not through ${h.index}: ${plan.text}`);
      }
    }
    assert.deepEqual(problems, [], `${label}: ${problems.length} statements plan badly`);
    assert.deepEqual(HOT_QUERIES.map((h) => h.name).filter((n) => !matched.has(n)), [], `${label}: hot queries not seen (their SQL changed?)`);
  }

  it('with no statistics at all (never analyzed, autovacuum off)', async () => {
    if (TEST_DIALECT === 'postgres') {
      const analyzed = await sql<{ n: number }>`select count(*)::int as n from pg_stat_user_tables where schemaname = current_schema() and relname = 'message_recipients' and (last_analyze is not null or last_autoanalyze is not null)`.execute(s.ctx.db);
      assert.equal(analyzed.rows[0]!.n, 0);
    }
    const ids = await runHotPaths(1);
    assert.ok(sink.messages.length >= 4, 'the new messages were delivered');
    const settled = await s.ctx.db.selectFrom('messages').select('status').where('id', 'in', ids).execute();
    assert.deepEqual(settled.map((m) => m.status), ['Sent', 'Sent', 'Sent']);
    await checkPlans('never analyzed');
  });

  it('with stale statistics (analyzed while every recipient was unsettled, then the tables doubled)', { skip: TEST_DIALECT !== 'postgres' && 'SQLite plans without statistics unless ANALYZE ran' }, async () => {
    // What autovacuum could have seen: the recipients all unsettled (a burst being accepted), then history grows.
    const db = s.ctx.database.db;
    await sql`update message_recipients set settled_at = null, status = 'Queued'`.execute(db);
    for (const t of BIG_TABLES) await sql`analyze ${sql.table(t)}`.execute(db);
    await sql`update message_recipients set settled_at = received_at + 1000, status = 'Sent' where settled_at is null`.execute(db);
    await fillHistory(s, MESSAGES + 1, MESSAGES);
    await runHotPaths(2);
    await checkPlans('stale statistics');
  });
});
