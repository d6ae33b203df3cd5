// The inbound data of bench/console: M inbound messages (and one hook attempt each) loaded by the database
// itself, as mailroom stores them (domain/inbound/receive.ts, hook-delivery.ts).
import { sql } from 'kysely';
import type { AppContext } from '../src/context.js';
import { T0 } from './search-data.js';

/** Inbound messages every 20 s from T0: 200,000 span 46 days. */
export const INBOUND_STEP = 20_000;

export function benchInboundId(n: number): string {
  const h = (T0 + n * INBOUND_STEP).toString(16).padStart(12, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4000-9000-${n.toString(16).padStart(12, '0')}`;
}

/** A stored payload of the usual size (about 2 KB: bodies, a dozen headers, one attachment described). */
function payload(): string {
  const headers = ['Return-Path', 'Received', 'DKIM-Signature', 'Message-ID', 'Date', 'MIME-Version', 'Content-Type', 'X-Mailer', 'Received-SPF', 'Authentication-Results'].map((Name) => ({ Name, Value: `${Name.toLowerCase()} value of a usual length, some fifty characters` }));
  return JSON.stringify({
    From: 'customer@example.org', FromName: 'A Customer', FromFull: { Email: 'customer@example.org', Name: 'A Customer', MailboxHash: '' },
    To: 'support@inbound.example', ToFull: [{ Email: 'support@inbound.example', Name: '', MailboxHash: '' }], Cc: '', CcFull: [], Bcc: '', BccFull: [],
    ReplyTo: '', OriginalRecipient: 'support@inbound.example', Subject: 'Help with my order', Date: 'Thu, 1 Jan 2026 10:00:00 +0000', MailboxHash: '', Tag: '',
    MessageID: '', MessageStream: 'inbound', TextBody: 'Hello,\n\nmy order did not arrive. Could you look into it?\n\nThanks\n'.repeat(4),
    HtmlBody: '<p>Hello,</p><p>my order did not arrive. Could you look into it?</p><p>Thanks</p>'.repeat(4), StrippedTextReply: 'Hello, my order did not arrive.',
    Headers: headers, Attachments: [{ Name: 'receipt.pdf', Content: '', ContentType: 'application/pdf', ContentLength: 48213, ContentID: '' }],
  });
}

/**
 * Messages n = 1..M: 5% for the second server; 90% Processed, 5% Blocked, 3% Failed, 2% Queued; 5,000 senders,
 * 20 tags, every other one with a MailboxHash among 1,000; one hook attempt each but the Blocked.
 */
export function loadInboundSql(ctx: AppContext, serverA: number, serverB: number, M: number) {
  const pgd = ctx.database.dialect === 'postgres';
  const seq = pgd ? sql`select n from generate_series(1::bigint, ${sql.lit(M)}) as n` : sql`with recursive s(n) as (select 1 union all select n + 1 from s where n < ${sql.lit(M)}) select n from s`;
  const cat = (...parts: ReturnType<typeof sql>[]) => sql.join(parts, sql` || `);
  const time = sql`${sql.lit(T0)} + n * ${sql.lit(INBOUND_STEP)}`;
  const hex = (e: ReturnType<typeof sql>, w: number) => (pgd ? sql`lpad(to_hex(${e}), ${sql.lit(w)}, '0')` : sql`printf(${sql.lit(`%0${w}x`)}, ${e})`);
  const id = sql`substr(${hex(time, 12)}, 1, 8) || '-' || substr(${hex(time, 12)}, 9, 4) || '-4000-9000-' || ${hex(sql`n`, 12)}`;
  const num = (e: ReturnType<typeof sql>) => (pgd ? sql`(${e})::text` : sql`cast(${e} as text)`);
  const server = sql`case when n % 20 = 0 then ${sql.lit(serverB)} else ${sql.lit(serverA)} end`;
  const status = sql`case when n % 100 < 5 then 'Blocked' when n % 100 < 8 then 'Failed' when n % 100 < 10 then 'Queued' else 'Processed' end`;
  const messages = sql`insert into inbound_messages (id, server_id, stream_id, digest, from_email, from_name, recipients, original_recipient, subject, mailbox_hash, tag, status, blocked_reason, spam_score, payload, attempts, last_error, received_at, processed_at)
    select ${id}, ${server}, 'inbound', ${id}, ${cat(sql`'customer'`, num(sql`n % 5000`), sql`'@example.org'`)}, ${cat(sql`'Customer '`, num(sql`n % 5000`))},
      ${cat(sql`'support+t'`, num(sql`n % 1000`), sql`'@inbound.example'`)}, ${cat(sql`'support+t'`, num(sql`n % 1000`), sql`'@inbound.example'`)},
      ${cat(sql`'Help with order '`, num(sql`n`))}, case when n % 2 = 0 then ${cat(sql`'t'`, num(sql`n % 1000`))} else '' end, ${cat(sql`'tag'`, num(sql`n % 20`))},
      ${status}, case when n % 100 < 5 then 'Blocked by the inbound rule ''example.org''.' else '' end, null, ${payload()}, 1, null, ${time}, ${time}
    from (${seq}) as seq`;
  const attempts = sql`insert into inbound_attempts (inbound_id, attempt, outcome, status_code, error, started_at, duration_ms, response_excerpt)
    select ${id}, 1, case when n % 100 < 8 then 'failed' else 'delivered' end, case when n % 100 < 8 then 500 else 200 end, null, ${time}, 12, 'ok'
    from (${seq}) as seq where n % 100 >= 5`;
  return [messages, attempts];
}
