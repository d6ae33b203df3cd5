// The queues of the Bulk API (src/domain/bulk): a request's pages are expanded by 'bulk-expand' jobs (one per
// page), and the messages compiled from it are delivered by 'deliver-bulk' jobs, the same delivery as the
// 'deliver' queue with slots of its own, so that a newsletter never waits in front of a password reset.
export const BULK_EXPAND_QUEUE = 'bulk-expand';
export { DELIVER_BULK_QUEUE as BULK_DELIVER_QUEUE } from '../delivery/jobs.js';

/** Recipients per page: one page is compiled into messages in one transaction (bounded work and memory). */
export const PAGE_SIZE = 500;

export interface ExpandPayload {
  bulkId: string;
  page: number;
}
