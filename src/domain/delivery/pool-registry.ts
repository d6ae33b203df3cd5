// One SMTP session pool per application context, shared by the delivery worker and system mail, closed
// when the worker stops.
import type { AppContext } from '../../context.js';
import { deliveryOptions } from './options.js';
import { SmtpPool } from './smtp-pool.js';

const pools = new WeakMap<AppContext, SmtpPool>();

export function smtpPoolFor(ctx: AppContext): SmtpPool {
  let p = pools.get(ctx);
  if (!p) {
    // As many idle sessions per target as jobs may run at once: with fewer, a relay serving every job saw
    // sessions closed on release and opened again (TCP, greeting, EHLO) a moment later.
    p = new SmtpPool(deliveryOptions(ctx.config), Math.max(32, ctx.config.deliveryConcurrency));
    pools.set(ctx, p);
  }
  return p;
}

export function closeSmtpPool(ctx: AppContext): void {
  pools.get(ctx)?.close();
  pools.delete(ctx);
}
