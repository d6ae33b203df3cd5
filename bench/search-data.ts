// The data of bench/search and bench/console: N messages loaded by the database itself.
import { sql } from 'kysely';
import type { AppContext } from '../src/context.js';

export const T0 = Date.UTC(2026, 0, 1); // messages every 4 s from here: 1M span 46 days (the default retention)
export const STEP = 4000;

/** The id of message n: shaped like mailroom's (a UUIDv7 of its received_at, domain/accepting/message-id.ts),
 * so that on PostgreSQL each lands in the day partition of its time (migration 0023). */
export function benchMessageId(n: number): string {
  const h = (T0 + n * STEP).toString(16).padStart(12, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7000-8000-${n.toString(16).padStart(12, '0')}`;
}

/**
 * One SELECT producing every message from a sequence n = 1..N. 5% belong to a second server, 10% to the
 * broadcast stream; 50 tags (1 in 7 untagged), 5 senders, 10% queued and 1% with a bounced recipient; one
 * To recipient each among 100,000 addresses (about ten messages each) and every fourth a Cc.
 */
export function loadSql(ctx: AppContext, serverA: number, serverB: number, N: number, o: { sandboxA?: boolean; from?: number } = {}) {
  const pgd = ctx.database.dialect === 'postgres';
  const first = o.from ?? 1;
  const seq = pgd ? sql`select n from generate_series(${sql.lit(first)}::bigint, ${sql.lit(N)}) as n` : sql`with recursive s(n) as (select ${sql.lit(first)} union all select n + 1 from s where n < ${sql.lit(N)}) select n from s`;
  const cat = (...parts: ReturnType<typeof sql>[]) => sql.join(parts, sql` || `);
  const time = sql`${sql.lit(T0)} + n * ${sql.lit(STEP)}`;
  // benchMessageId in SQL.
  const hex = (e: ReturnType<typeof sql>, w: number) => (pgd ? sql`lpad(to_hex(${e}), ${sql.lit(w)}, '0')` : sql`printf(${sql.lit(`%0${w}x`)}, ${e})`);
  const id = sql`substr(${hex(time, 12)}, 1, 8) || '-' || substr(${hex(time, 12)}, 9, 4) || '-7000-8000-' || ${hex(sql`n`, 12)}`;
  const num = (e: ReturnType<typeof sql>) => (pgd ? sql`(${e})::text` : sql`cast(${e} as text)`);
  const server = sql`case when n % 20 = 0 then ${sql.lit(serverB)} else ${sql.lit(serverA)} end`;
  const stream = sql`case when n % 10 = 0 then 'broadcast' else 'outbound' end`;
  const messages = sql`insert into messages (id, server_id, stream_id, from_email, from_raw, subject, tag, html_body, text_body, reply_to, headers, metadata, track_opens, track_links, attachments, status, sandbox, received_at, mime)
    select ${id}, ${server}, ${stream},
      ${cat(sql`'sender'`, num(sql`n % 5`), sql`'@example.com'`)}, ${cat(sql`'sender'`, num(sql`n % 5`), sql`'@example.com'`)},
      ${cat(sql`'Subject '`, num(sql`n`))},
      case when n % 7 = 0 then null else ${cat(sql`'tag'`, num(sql`n % 50`))} end,
      '<p>hello</p>', null, null, '[]', ${cat(sql`'{"customer":"c'`, num(sql`n % 1000`), sql`'"}'`)}, 0, 'None', '[]',
      case when n % 10 = 1 then 'Queued' else 'Sent' end, ${o.sandboxA ? sql`case when n % 20 = 0 then 0 else 1 end` : sql.lit(0)}, ${time}, null
    from (${seq}) as seq`;
  const to = sql`insert into message_recipients (message_id, server_id, stream_id, kind, email, name, status, received_at, settled_at)
    select ${id}, ${server}, ${stream}, 'To', ${cat(sql`'user'`, num(sql`(n * 7919) % 100000`), sql`'@example.net'`)}, '',
      case when n % 100 = 3 then 'Bounced' else 'Sent' end, ${time}, null
    from (${seq}) as seq`;
  const cc = sql`insert into message_recipients (message_id, server_id, stream_id, kind, email, name, status, received_at, settled_at)
    select ${id}, ${server}, ${stream}, 'Cc', ${cat(sql`'cc'`, num(sql`n % 50000`), sql`'@example.org'`)}, '', 'Sent', ${time}, null
    from (${seq}) as seq where n % 4 = 0`;
  // The Metadata field's row, as accepting writes it (migration 0039).
  const metadata = sql`insert into message_metadata (message_id, key, server_id, stream_id, value, received_at)
    select ${id}, 'customer', ${server}, ${stream}, ${cat(sql`'c'`, num(sql`n % 1000`))}, ${time}
    from (${seq}) as seq`;
  return [messages, to, cc, metadata];
}

