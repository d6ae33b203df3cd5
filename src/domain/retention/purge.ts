// Message retention (docs/reference/api-conventions.md, "General rules" 3): messages and their open/click
// records are deleted after the server's retention period (7-365 days, default 45), and so is bounce
// information. Statistics are separate counters and stay (rule 4 there).
//
// On PostgreSQL the message tables are partitioned by day (migration 0023, infra/db/partitions.ts): each run
// first drops the days older than the longest retention of any server, whole, with everything in them.
// What is left to delete row by row is the messages of servers with a shorter retention inside the kept
// days, and rows of the default partition. The servers with the longest retention lose their messages by
// the day (at most 24 h after they expire, rowPurgeCutoff); on SQLite every server is purged exactly.
//
// Row deletion runs in small batches, each its own short transaction, so that sending (which needs the
// database's write lock on SQLite, and row locks on PostgreSQL) never waits long behind a purge. A batch is
// sized by the time the last one took (BATCH_TARGET_MS): SQLite runs statements on the event loop, where a
// fixed 500 messages took two thirds of a second, and a cascade costs more or less by what each message
// carries. There is no cap per server and run: a server sending millions a day would fall behind one. Deleting a
// message removes its recipients, attachments, events, opens and clicks (message-store/purge.ts: ON DELETE
// CASCADE on SQLite, explicit deletes on PostgreSQL; each of those tables is indexed by message_id). One
// worker runs it per period (infra/jobs/periodic-claim.ts), and it is idempotent: a run cut short is finished
// by the next one.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import { dropPartitionsBefore, rowPurgeCutoff } from '../../infra/db/partitions.js';
import { DAY_MS } from '../../infra/time.js';
import { purgeDmarcReports } from '../dmarc/retention.js';
import { deleteMessageRows } from '../message-store/purge.js';

/** The largest batch; the first is BATCH_FIRST, the next ones sized to take about BATCH_TARGET_MS each. */
export const RETENTION_BATCH = 500;
const BATCH_FIRST = 50;
const BATCH_MIN = 5;
/** A batch's time, held on the event loop on SQLite: well under the 50 ms any one piece of work may take. */
export const BATCH_TARGET_MS = 20;
export const RETENTION_EVERY_MS = 15 * 60_000;

/** The next batch size from the last one's size and time. */
export const nextBatch = (size: number, ms: number): number => Math.max(BATCH_MIN, Math.min(RETENTION_BATCH, Math.floor((size * BATCH_TARGET_MS) / Math.max(ms, 1))));

export interface PurgeCounts {
  /** Messages deleted row by row (those in dropped partitions are not counted). */
  messages: number;
  bounces: number;
  /** Day partitions dropped (PostgreSQL). */
  partitions: number;
  /** DMARC aggregate reports past MAILROOM_DMARC_RETENTION_DAYS (domain/dmarc/retention.ts). */
  dmarcReports: number;
}

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The tables retention deletes from, each with the time that ages its rows. */
const AGED = { messages: 'received_at', bounces: 'bounced_at' } as const;

/** Deletes the rows older than `cutoff` matching `scope` (a server, or a server's stream), oldest first, in
 * batches (at most `maxBatches`), each its own transaction; returns how many were deleted. */
async function deleteBefore(
  ctx: AppContext,
  table: keyof typeof AGED,
  scope: { server_id: number; stream_id?: string },
  cutoff: number,
  maxBatches: number,
): Promise<number> {
  // Both tables share the columns used here (id, server_id and their time column); Kysely cannot type a
  // query over a union of tables, hence the one cast.
  const db = ctx.db as unknown as Kysely<Record<string, { id: string | number; server_id: number; stream_id: string; received_at: number; bounced_at: number }>>;
  const at = AGED[table];
  let deleted = 0;
  let size = BATCH_FIRST;
  for (let i = 0; i < maxBatches; i++) {
    const started = performance.now();
    let q = db.selectFrom(table).select('id').where('server_id', '=', scope.server_id);
    if (scope.stream_id !== undefined) q = q.where('stream_id', '=', scope.stream_id);
    const ids = await q.where(at, '<', cutoff).orderBy(at).limit(size).execute();
    if (ids.length === 0) break;
    if (table === 'messages') {
      deleted += await deleteMessageRows(ctx.db, ids.map((r) => String(r.id)), scope.server_id);
    } else {
      const done = await db
        .deleteFrom(table)
        .where('server_id', '=', scope.server_id)
        .where(
          'id',
          'in',
          ids.map((r) => r.id),
        )
        .executeTakeFirst();
      deleted += Number(done.numDeletedRows);
    }
    if (ids.length < size) break;
    size = nextBatch(size, performance.now() - started);
    await pause();
  }
  return deleted;
}

/** Deletes up to `maxBatches` batches per stream of one server's messages received before `cutoff`; also
 * used to empty a server before deleting it. Stream by stream, because messages are indexed by
 * (server_id, stream_id, received_at, id) for search: a per-server time index would be one more B-tree
 * written by every accepted message (migration 0012 dropped it). Archived streams are included; a stream's
 * row outlives its messages (the stream purge deletes the messages first). */
export async function deleteMessagesBefore(ctx: AppContext, serverId: number, cutoff: number, maxBatches = Infinity): Promise<number> {
  const streams = await ctx.db.selectFrom('message_streams').select('id').where('server_id', '=', serverId).execute();
  let deleted = 0;
  for (const s of streams) deleted += await deleteBefore(ctx, 'messages', { server_id: serverId, stream_id: s.id }, cutoff, maxBatches);
  return deleted;
}

/** One retention run over every server; a message is kept for exactly retention_days x 24 h. */
export async function purgeExpired(ctx: AppContext, now: number): Promise<PurgeCounts> {
  const counts: PurgeCounts = { messages: 0, bounces: 0, partitions: 0, dmarcReports: 0 };
  const servers = await ctx.db.selectFrom('servers').select(['id', 'retention_days']).orderBy('id').execute();
  const longest = Math.max(0, ...servers.map((s) => s.retention_days));
  if (servers.length > 0) {
    try {
      counts.partitions = (await dropPartitionsBefore(ctx.db, now - longest * DAY_MS)).length;
    } catch (err) {
      // Most likely a lock timeout behind a long query: the next run drops them; rows go on being purged.
      ctx.logger.error({ err }, 'retention: dropping expired partitions failed');
    }
  }
  for (const s of servers) {
    try {
      const cutoff = now - s.retention_days * DAY_MS;
      counts.messages += await deleteMessagesBefore(ctx, s.id, rowPurgeCutoff(ctx.db, cutoff, s.retention_days === longest));
      counts.bounces += await deleteBefore(ctx, 'bounces', { server_id: s.id }, cutoff, Infinity);
    } catch (err) {
      // One server's failure (a deleted server, a lock timeout) must not stop the others.
      ctx.logger.error({ err, serverId: s.id }, 'retention purge failed for a server');
    }
  }
  try {
    counts.dmarcReports = await purgeDmarcReports(ctx, now);
  } catch (err) {
    ctx.logger.error({ err }, 'retention purge of DMARC reports failed');
  }
  if (counts.messages || counts.bounces || counts.partitions || counts.dmarcReports) ctx.logger.info(counts, 'retention purge');
  return counts;
}
