// The 'inbound-hook' queue: one job per inbound message to POST to its server's InboundHookUrl, grouped per
// server so that one slow application holds only a few of the worker's slots. Retries follow the webhook
// schedule (1 minute growing to 6 hours, 10 retries: docs "Parse an email"), a 403 stops them.
import type { NewJob } from '../../infra/jobs/enqueue.js';

export const INBOUND_HOOK_QUEUE = 'inbound-hook';

export interface InboundHookJobPayload {
  inboundId: string;
}

/** The jobs of one server share a group: the worker posts to one application at most `perServer` at once. */
export const inboundHookGroup = (serverId: number): string => `inbound:${serverId}`;

export function inboundHookJob(inboundId: string, serverId: number, runAt: number): NewJob {
  return { queue: INBOUND_HOOK_QUEUE, payload: { inboundId } satisfies InboundHookJobPayload, runAt, groupKey: inboundHookGroup(serverId) };
}

/** Inbound message statuses, as GET /messages/inbound shows and filters them. */
export const INBOUND_STATUS = {
  queued: 'Queued',
  scheduled: 'Scheduled',
  processed: 'Processed',
  failed: 'Failed',
  blocked: 'Blocked',
} as const;
