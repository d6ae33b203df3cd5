// Stores an accepted bulk request in several transactions, none of which holds the event loop long: a request
// of 50 MB written in one transaction held it for the whole INSERT and, on SQLite, for COMMIT's fsync of the
// write-ahead log. The writes go through a group commit (infra/db/group-commit.ts): on a SQLite file each
// commits without an fsync on the event loop and is answered after the WAL's fdatasync on libuv's pool, with
// checkpoints on a thread; on PostgreSQL, plain transactions.
//
// All or nothing across those transactions: the request's row is written first with the status 'Storing',
// which every reader of bulk requests passes over (GET /email/bulk/{id}, the console, the counts), and no
// job exists for it; the pages follow, BATCH_CHARS of JSON per transaction, then each attachment; the last
// transaction turns the row 'Accepted' and queues its expansion jobs. The caller answers after that commit
// is durable. A failure on the way deletes what was written; a crash leaves a 'Storing' row nobody sees,
// deleted by the 'bulk-finish' task once it is older than ABANDONED_MS (status.ts).
import { sql, type Insertable, type Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import { createGroupCommit, type GroupCommit } from '../../infra/db/group-commit.js';
import type { Db } from '../../infra/db/database.js';
import type { Database } from '../../infra/db/schema.js';
import type { BulkRequestsTable } from '../../infra/db/tables/bulk.js';
import { executeUnsynced } from '../../infra/db/unsynced.js';
import { enqueueJobs, type NewJob } from '../../infra/jobs/enqueue.js';
import type { PreparedAttachment } from '../accepting/types.js';
import type { BulkEntry } from './content.js';
import { PAGE_SIZE } from './jobs.js';
import type { Turns } from './turns.js';

/** The status of a request being written: seen by nobody, never expanded. */
export const STORING = 'Storing';
/** A 'Storing' row this old was left by a process that died while writing it. */
export const ABANDONED_MS = 60 * 60 * 1000;
/** Characters of pages' JSON per transaction: a few milliseconds of INSERT on the event loop. */
export const BATCH_CHARS = 1024 * 1024;
/** About what one message's row takes in the WAL: a batch's weight for the checkpoint pacing. */
const CHARS_PER_WEIGHT = 10_000;
const PAGES_PER_STATEMENT = 20;
const PAGE_COLUMNS = ['bulk_id', 'page', 'entries'] as const;
const ATTACHMENT_COLUMNS = ['bulk_id', 'position', 'name', 'content_type', 'content_id', 'content', 'size'] as const;

interface Write {
  weight: number;
  run(trx: Kysely<Database>): Promise<void>;
}

// One writer per database, shared by the requests being stored: their batches may share a commit.
const writers = new WeakMap<Db, GroupCommit<Write>>();

function writerOf(ctx: AppContext): GroupCommit<Write> {
  let w = writers.get(ctx.database);
  if (!w) {
    w = createGroupCommit<Write>(ctx, {
      name: 'bulk requests',
      weight: (item) => item.weight,
      maxWeight: Math.ceil(BATCH_CHARS / CHARS_PER_WEIGHT),
      commit: async (trx, items) => {
        for (const item of items) await item.run(trx);
      },
    });
    writers.set(ctx.database, w);
  }
  return w;
}

export interface StoredRequest {
  row: Insertable<BulkRequestsTable>;
  entries: BulkEntry[];
  attachments: PreparedAttachment[];
  jobs: NewJob[];
  now: number;
}

/** The pages' rows, BATCH_CHARS at a time; each page's JSON written in turns of the event loop. */
async function* pageBatches(id: string, entries: BulkEntry[], turns: Turns): AsyncGenerator<unknown[][]> {
  let batch: unknown[][] = [];
  let chars = 0;
  for (let p = 0; p * PAGE_SIZE < entries.length; p++) {
    const json = JSON.stringify(entries.slice(p * PAGE_SIZE, (p + 1) * PAGE_SIZE));
    batch.push([id, p, json]);
    chars += json.length;
    if (chars >= BATCH_CHARS) {
      yield batch;
      batch = [];
      chars = 0;
    }
    if (turns.due(PAGE_SIZE)) await turns.take();
  }
  if (batch.length > 0) yield batch;
}

const pageWrite = (ctx: AppContext, rows: unknown[][]): Write => ({
  weight: Math.max(1, Math.ceil(rows.reduce((n, r) => n + (r[2] as string).length, 0) / CHARS_PER_WEIGHT)),
  run: async (trx) => {
    for (let i = 0; i < rows.length; i += PAGES_PER_STATEMENT) await ctx.database.sql.insertRows(trx, 'bulk_pages', PAGE_COLUMNS, rows.slice(i, i + PAGES_PER_STATEMENT));
  },
});

/** Writes the request; resolves once it is durably stored, 'Accepted' and its jobs queued. */
export async function storeBulkRequest(ctx: AppContext, r: StoredRequest, turns: Turns): Promise<void> {
  const writer = writerOf(ctx);
  const id = r.row.id;
  const head: Write = { weight: 1, run: async (trx) => void (await trx.insertInto('bulk_requests').values({ ...r.row, status: STORING }).execute()) };
  let pending: Promise<void> | null = null;
  try {
    // The next batch's JSON is written while the previous one commits and syncs.
    pending = writer.submit(head);
    for await (const rows of pageBatches(id, r.entries, turns)) {
      await pending;
      pending = writer.submit(pageWrite(ctx, rows));
    }
    await pending;
    for (const [position, a] of r.attachments.entries()) {
      await writer.submit({
        weight: Math.max(1, Math.ceil(a.content.length / CHARS_PER_WEIGHT)),
        run: (trx) => ctx.database.sql.insertRows(trx, 'bulk_attachments', ATTACHMENT_COLUMNS, [[id, position, a.name, a.contentType, a.contentId, a.content, a.size]]),
      });
    }
    await writer.submit({
      weight: 1,
      run: async (trx) => {
        const done = await trx.updateTable('bulk_requests').set({ status: 'Accepted' }).where('id', '=', id).where('status', '=', STORING).executeTakeFirst();
        if (Number(done.numUpdatedRows) !== 1) throw new Error(`bulk request ${id} was removed while it was being stored`);
        await enqueueJobs(trx, r.jobs, r.now);
      },
    });
  } catch (err) {
    if (pending) {
      // A batch still being written is let finish first: deleting under it would leave its pages behind.
      await pending.catch(() => undefined);
      await removeRequest(ctx, id).catch((e: unknown) => ctx.logger.warn({ err: e, bulkId: id }, 'bulk: a request not stored whole is left for the bulk-finish task'));
    }
    throw err;
  }
}

/**
 * Deletes a request that was not stored whole: its pages a few at a time, then its attachments and its row.
 * Each statement commits on its own, without an fsync of its own (unsynced.ts): a deletion lost to a power
 * failure is simply done again by the 'bulk-finish' task.
 */
export async function removeRequest(ctx: AppContext, id: string): Promise<void> {
  // Only while 'Storing': a last commit that went through before its sync failed left an accepted request.
  const row = await ctx.db.selectFrom('bulk_requests').select('status').where('id', '=', id).executeTakeFirst();
  if (row?.status !== STORING) return;
  for (;;) {
    const rows = await executeUnsynced(
      ctx.database,
      sql<{ page: number }>`delete from bulk_pages where bulk_id = ${id} and page in (select page from bulk_pages where bulk_id = ${id} limit ${PAGES_PER_STATEMENT}) returning page`,
    );
    if (rows.length === 0) break;
  }
  await executeUnsynced(ctx.database, sql`delete from bulk_attachments where bulk_id = ${id}`);
  await executeUnsynced(ctx.database, sql`delete from bulk_requests where id = ${id} and status = ${STORING}`);
}

/** Removes the 'Storing' rows left by processes that died while writing them (the 'bulk-finish' task). */
export async function removeAbandoned(ctx: AppContext, now: number): Promise<number> {
  const rows = await ctx.db.selectFrom('bulk_requests').select('id').where('status', '=', STORING).where('submitted_at', '<', now - ABANDONED_MS).limit(100).execute();
  for (const { id } of rows) await removeRequest(ctx, id);
  return rows.length;
}
