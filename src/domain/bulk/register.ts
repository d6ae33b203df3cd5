// Registers the Bulk API's work on the job runner: page expansion ('bulk-expand'), the delivery of the
// messages compiled from bulk requests ('deliver-bulk', the same handler as 'deliver' with its own slots:
// MAILROOM_DELIVERY_CONCURRENCY for transactional mail stays whole however long the bulk queue is, so a
// password reset sent during a newsletter is claimed at once), and what completes requests: the finisher,
// poked by every bulk delivery, and the periodic task behind it, which also removes requests a dead process
// left half written (store.ts). Returns the finisher's stop.
import type { AppContext } from '../app-context.js';
import { runDeliveryJob, type DeliveryParts } from '../delivery/handler.js';
import { DELIVERY_SCHEDULE, deliveryOptions } from '../delivery/options.js';
import { expandPage } from './expand.js';
import { createBulkFinisher } from './finisher.js';
import { BULK_DELIVER_QUEUE, BULK_EXPAND_QUEUE } from './jobs.js';
import { finishBulkRequests } from './status.js';
import { removeAbandoned } from './store.js';

export function registerBulk(ctx: AppContext, parts: DeliveryParts): () => Promise<void> {
  const o = deliveryOptions(ctx.config);
  const finisher = createBulkFinisher(ctx);
  // Two jobs at once per process: each is one transaction of PAGES_PER_JOB pages; more would only queue on
  // SQLite's single writer. The delivery lease (MAILROOM_DELIVERY_LEASE_SECONDS, renewed by the heartbeat
  // while a job runs): the pages of a worker that died are taken up again as soon as its deliveries are.
  ctx.runner.register({ queue: BULK_EXPAND_QUEUE, concurrency: 2, leaseMs: o.leaseMs, handle: async (job) => void (await expandPage(ctx, job)) });
  ctx.runner.register({
    queue: BULK_DELIVER_QUEUE,
    concurrency: Math.max(1, Math.ceil(ctx.config.deliveryConcurrency / 2)),
    groupConcurrency: ctx.config.deliveryDomainConcurrency,
    leaseMs: o.leaseMs,
    schedule: DELIVERY_SCHEDULE,
    handle: async (job, release) => {
      await runDeliveryJob(ctx, parts, job, release);
      await finisher.poke();
    },
  });
  ctx.scheduler.add({
    name: 'bulk-finish',
    everyMs: 30_000,
    run: async (now) => {
      await finishBulkRequests(ctx, now);
      await removeAbandoned(ctx, now);
    },
  });
  return () => finisher.stop();
}
