// Registers the delivery worker on the job runner: one process delivers at most
// MAILROOM_DELIVERY_CONCURRENCY jobs at once, and at most MAILROOM_DELIVERY_DOMAIN_CONCURRENCY for one
// destination domain, so a slow domain cannot hold every slot. The parts it shares between jobs (SMTP pool,
// loader, outcome batcher) come from the composition root (src/worker.ts).
import type { AppContext } from '../app-context.js';
import { runDeliveryJob, type DeliveryParts } from './handler.js';
import { DELIVER_QUEUE } from './jobs.js';
import { DELIVERY_SCHEDULE, deliveryOptions } from './options.js';

/** Returns the function that closes the pooled SMTP connections when the worker stops. */
export function registerDelivery(ctx: AppContext, parts: DeliveryParts): () => Promise<void> {
  const o = deliveryOptions(ctx.config);
  ctx.runner.register({
    queue: DELIVER_QUEUE,
    concurrency: ctx.config.deliveryConcurrency,
    groupConcurrency: ctx.config.deliveryDomainConcurrency,
    leaseMs: o.leaseMs,
    schedule: DELIVERY_SCHEDULE,
    handle: (job, release) => runDeliveryJob(ctx, parts, job, release),
  });
  return async () => parts.pool.close();
}
