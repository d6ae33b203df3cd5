// The 'inbound-hook' queue: one job per inbound message to POST to its server's InboundHookUrl, grouped per
// server so that one slow application holds only a few of the worker's slots. Retries follow the webhook
// schedule (1 minute growing to 6 hours, 10 retries: docs "Parse an email"), a 403 stops them.
import type { NewJob } from '../../infra/jobs/enqueue.js';

export const INBOUND_HOOK_QUEUE = 'inbound-hook';

export interface InboundHookJobPayload {
  inboundId: string;
}

/**
 * What intake already holds of a message whose job it hands to this process's runner (infra/jobs/enqueue-local.ts, LocalJob.commit): the
 * stored payload, so the hook posts without reading it back. The InboundHookUrl is still read when the post
 * starts: a job may wait for its server's slot while the application is slow, and a URL changed meanwhile
 * is where it goes. Payloads over HANDOVER_PAYLOAD_CHARS are not kept (the job reads them back): the
 * runner's slots bound how many wait in memory, and this bounds their size.
 */
export interface InboundHookHandover {
  serverId: number;
  payload: string;
}

export const HANDOVER_PAYLOAD_CHARS = 1024 * 1024;

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
