// One log line per delivery attempt (per recipient), and the delivery counters: a relay that stops
// answering shows at once as `deferred` warnings carrying the next retry time (docs/operations.md, "Logs").
import type { AppContext } from '../app-context.js';
import { backoffDelay } from '../../infra/jobs/backoff.js';
import type { Job } from '../../infra/jobs/types.js';
import { classifyReply } from './classify.js';
import { DELIVERY_SCHEDULE } from './options.js';
import type { SendResult } from './transport.js';

export type AttemptOutcome = 'delivered' | 'deferred' | 'bounced';

export function attemptOutcome(r: SendResult): AttemptOutcome {
  if (r.ok) return 'delivered';
  if (r.network) return 'deferred';
  return classifyReply(r.reply).kind === 'permanent' ? 'bounced' : 'deferred';
}

export function logAttempts(ctx: AppContext, job: Job, messageId: string, domain: string, recipientIds: number[], results: SendResult[], durationMs: number): void {
  const log = ctx.logger;
  const counter = ctx.metrics.deliveryAttempts;
  for (let i = 0; i < results.length; i++) {
    const r = results[i];
    const outcome = attemptOutcome(r);
    counter.inc({ outcome });
    if (r.tls?.result) ctx.metrics.tlsResults.inc({ result: r.tls.result, policy: r.tls.mode ?? 'none' });
    const line = {
      event: 'delivery',
      messageId,
      recipientId: recipientIds[i],
      domain,
      outcome,
      server: r.server,
      reply: r.reply.text.slice(0, 300),
      ...(r.tls ? { tls: r.tls.version ?? 'none', tlsResult: r.tls.result ?? undefined } : {}),
      durationMs: Math.round(durationMs),
      attempt: job.attempts,
    };
    if (outcome === 'delivered') log.info(line, 'delivery attempt');
    else if (outcome === 'bounced') log.info(line, 'delivery attempt');
    else log.warn({ ...line, retryInMs: backoffDelay(job.attempts, DELIVERY_SCHEDULE) }, r.ok === false && r.network ? 'delivery attempt: next hop unreachable' : 'delivery attempt');
  }
}
