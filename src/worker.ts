// The worker role: registers every queue handler and periodic task, then starts them. Each area adds its
// registration here (delivery, webhooks, purges, retention, DNS re-checks, the inbound SMTP listener).
import { ConfigError } from './config.js';
import type { AppContext } from './context.js';
import { checkIpPools } from './domain/delivery/ip-pools/check.js';
import { IpPoolsError } from './domain/delivery/ip-pools/parse.js';
import { purgeExpired, RETENTION_EVERY_MS } from './domain/retention/purge.js';
import { createPartitionsAhead, PARTITIONS_EVERY_MS } from './infra/db/partitions.js';
import { startInboundListener } from './smtp-listeners/inbound-listener.js';
import { PURGE_EVERY_MS, purgeReportDigests } from './domain/inbound/purge.js';
import { registerDelivery } from './domain/delivery/register.js';
import type { DeliveryParts } from './domain/delivery/handler.js';
import { DeliveryLoader } from './domain/delivery/load.js';
import { createOutcomeBatcher } from './domain/delivery/outcome-batcher.js';
import { createPacer } from './domain/delivery/pacing/pacer.js';
import { envelopeDomain, findSigningKey } from './domain/sender-signatures/signing.js';
import { trackingBaseUrl } from './domain/domains/tracking-domain.js';
import { registerSenderWorkers } from './domain/sender-signatures/workers.js';
import { purgeArchivedStreams } from './domain/streams/purge.js';
import { purgeIdempotencyKeys } from './domain/accepting/idempotency.js';
import { registerWebhookWorker } from './domain/webhooks/register.js';
import { registerMailpitWebhook } from './domain/mailpit/webhook.js';
import { registerDataRemovals } from './domain/data-removals/register.js';
import { registerInbound } from './domain/inbound/register.js';
import { registerBulk } from './domain/bulk/register.js';
import { DIGEST_EVERY_MS, sendWeeklyDigests } from './domain/dmarc/digest.js';

export interface WorkerHandle {
  stop(): Promise<void>;
}

/** What the delivery worker shares between its jobs: the context's SMTP pool, one loader, one outcome batcher, one pacer. */
export function deliveryParts(ctx: AppContext): DeliveryParts {
  const senders = {
    signingKey: (a: number, from: string) => findSigningKey(ctx, a, from),
    envelopeDomain: (a: number, from: string) => envelopeDomain(ctx, a, from),
    trackingBase: (a: number, from: string) => trackingBaseUrl(ctx, a, from),
  };
  return { pool: ctx.smtpPool, loader: new DeliveryLoader(ctx, senders), outcomes: createOutcomeBatcher(ctx), pacer: createPacer(ctx) };
}

/** Registers handlers and tasks on ctx.runner / ctx.scheduler without starting them (tests drive them). */
export async function registerWorkers(_ctx: AppContext): Promise<Array<() => Promise<void>>> {
  const stops: Array<() => Promise<void>> = [];
  _ctx.scheduler.add({ name: 'retention', everyMs: RETENTION_EVERY_MS, run: async (now) => void (await purgeExpired(_ctx, now)) });
  // PostgreSQL: tomorrow's day partitions of the message tables exist before tomorrow (no-op on SQLite).
  _ctx.scheduler.add({ name: 'partitions-ahead', everyMs: PARTITIONS_EVERY_MS, run: async (now) => void (await createPartitionsAhead(_ctx.db, now)) });
  stops.push((await startInboundListener(_ctx)).stop);
  _ctx.scheduler.add({ name: 'inbound-report-digests-purge', everyMs: PURGE_EVERY_MS, run: async (now) => void (await purgeReportDigests(_ctx, now)) });
  // DMARC aggregate reports: the weekly digest per domain, as a webhook and by mail.
  _ctx.scheduler.add({ name: 'dmarc-weekly-digest', everyMs: DIGEST_EVERY_MS, run: async (now) => void (await sendWeeklyDigests(_ctx, now)) });
  const delivery = deliveryParts(_ctx);
  stops.push(registerDelivery(_ctx, delivery));
  stops.push(registerBulk(_ctx, delivery));
  registerSenderWorkers(_ctx);
  _ctx.scheduler.add({ name: 'archived-streams-purge', everyMs: 10 * 60_000, run: async (now) => void (await purgeArchivedStreams(_ctx, now)) });
  stops.push(registerWebhookWorker(_ctx));
  stops.push(registerMailpitWebhook(_ctx));
  stops.push(registerInbound(_ctx));
  _ctx.scheduler.add({ name: 'idempotency-keys-purge', everyMs: 60 * 60_000, run: (now) => purgeIdempotencyKeys(_ctx.db, now) });
  registerDataRemovals(_ctx);
  return stops;
}

export async function startWorker(ctx: AppContext): Promise<WorkerHandle> {
  // Before any job is claimed: a pool address that is not this machine's stops the start, naming it.
  await checkIpPools(ctx).catch((err) => {
    throw err instanceof IpPoolsError ? new ConfigError('MAILROOM_IP_POOLS', err.message) : err;
  });
  const stops = await registerWorkers(ctx);
  ctx.runner.start();
  ctx.scheduler.start();
  return {
    async stop() {
      for (const s of stops) await s();
      await ctx.scheduler.stop();
      await ctx.runner.stop();
    },
  };
}
