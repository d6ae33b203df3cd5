// The contract between accepting a message and delivering it: one 'deliver' job per message and
// destination domain, grouped by domain so a slow domain cannot take every worker slot.
import { emailDomain } from '../../infra/mime/normalize.js';
import type { NewJob } from '../../infra/jobs/enqueue.js';

export const DELIVER_QUEUE = 'deliver';

export interface DeliverPayload {
  messageId: string;
  /** Destination domain; the job delivers every unsettled recipient of the message at this domain. */
  domain: string;
}

export function deliveryJobsFor(messageId: string, recipientEmails: string[], runAt: number): NewJob[] {
  const domains = [...new Set(recipientEmails.map(emailDomain))];
  return domains.map((domain) => ({
    queue: DELIVER_QUEUE,
    payload: { messageId, domain } satisfies DeliverPayload,
    runAt,
    groupKey: domain,
    messageId,
  }));
}
