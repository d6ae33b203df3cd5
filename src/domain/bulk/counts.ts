// What `mailroom status` and /metrics say about bulk requests: how many requests are in each state,
// and how many of their entries are still waiting to be compiled into messages. Two aggregates over
// bulk_requests: the first reads the index bulk_requests_status only; the second reads the open requests'
// rows (Accepted or Processing, a handful at any time; Completed and Failed ones are never read).
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import type { BulkStatus } from './status.js';

export interface BulkCounts {
  /** Requests per status; every status is present (0 when none). */
  requests: Record<BulkStatus, number>;
  /** Entries of open requests not yet compiled, skipped or failed: the expansion backlog. */
  entriesPending: number;
}

const STATUSES: BulkStatus[] = ['Accepted', 'Processing', 'Completed', 'Failed'];

export async function bulkCounts(db: Kysely<Database>): Promise<BulkCounts> {
  const rows = await db.selectFrom('bulk_requests').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').execute();
  const requests = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<BulkStatus, number>;
  for (const r of rows) if (r.status in requests) requests[r.status as BulkStatus] = Number(r.n);
  const open = await db
    .selectFrom('bulk_requests')
    .select((eb) => eb.fn.sum<number>(eb(eb(eb('total_messages', '-', eb.ref('compiled')), '-', eb.ref('skipped')), '-', eb.ref('failed'))).as('n'))
    .where('status', 'in', ['Accepted', 'Processing'])
    .executeTakeFirst();
  return { requests, entriesPending: Math.max(0, Number(open?.n ?? 0)) };
}
