// The contract between accepting a message and delivering it: one 'deliver' job per message and
// destination domain, grouped by domain so a slow domain cannot take every worker slot.
import { emailDomain } from '../../infra/mime/normalize.js';
import type { NewJob } from '../../infra/jobs/enqueue.js';

export const DELIVER_QUEUE = 'deliver';
/** The same delivery for messages compiled from a bulk request (src/domain/bulk), with slots of its own. */
export const DELIVER_BULK_QUEUE = 'deliver-bulk';
/** Every queue whose jobs deliver a message (a check for pending deliveries looks at both). */
export const DELIVERY_QUEUES = [DELIVER_QUEUE, DELIVER_BULK_QUEUE] as const;

export interface DeliverPayload {
  messageId: string;
  /** Destination domain; the job delivers every unsettled recipient of the message at this domain. */
  domain: string;
}

/** `queue`: DELIVER_QUEUE, or the bulk queue for messages compiled from a bulk request (src/domain/bulk). */
export function deliveryJobsFor(messageId: string, recipientEmails: string[], runAt: number, queue: string = DELIVER_QUEUE): NewJob[] {
  const domains = [...new Set(recipientEmails.map(emailDomain))];
  return domains.map((domain) => ({
    queue,
    payload: { messageId, domain } satisfies DeliverPayload,
    runAt,
    groupKey: domain,
    messageId,
  }));
}
