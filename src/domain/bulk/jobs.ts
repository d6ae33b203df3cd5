// The queues of the Bulk API (src/domain/bulk): a request's pages are expanded by 'bulk-expand' jobs (one per
// PAGES_PER_JOB pages), and the messages compiled from it are delivered by 'deliver-bulk' jobs, the same delivery as the
// 'deliver' queue with slots of its own, so that a newsletter never waits in front of a password reset.
export const BULK_EXPAND_QUEUE = 'bulk-expand';
export { DELIVER_BULK_QUEUE as BULK_DELIVER_QUEUE } from '../delivery/jobs.js';

/** Recipients per page: one page is compiled into messages in one transaction (bounded work and memory). */
export const PAGE_SIZE = 500;

/** Pages per 'bulk-expand' job, compiled in ONE transaction (2,000 messages, the size of the sending path's
 * largest group commit). One page per transaction spent most of the expansion in COMMIT and its fsync and in
 * the per-transaction reads (request, content, sender checks): bench:bulk at 30,000 recipients ran 1.8-2.3x
 * faster with 2,000 entries per transaction than with 500, load 11-14 (bench/README.md). Still bounded: a
 * transaction holds SQLite's write lock for about a tenth of a second. */
export const PAGES_PER_JOB = 4;

export interface ExpandPayload {
  bulkId: string;
  /** The first page of the job. */
  page: number;
  /** Pages from `page` on (absent in jobs queued before there were several: one). */
  pages?: number;
}
