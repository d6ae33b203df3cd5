// One SMTP session pool per application context, shared by the delivery worker and system mail, closed
// when the worker stops.
import type { AppContext } from '../context.js';
import { deliveryOptions } from './options.js';
import { SmtpPool } from './smtp-pool.js';

const pools = new WeakMap<AppContext, SmtpPool>();

export function smtpPoolFor(ctx: AppContext): SmtpPool {
  let p = pools.get(ctx);
  if (!p) {
    p = new SmtpPool(deliveryOptions(ctx.config));
    pools.set(ctx, p);
  }
  return p;
}

export function closeSmtpPool(ctx: AppContext): void {
  pools.get(ctx)?.close();
  pools.delete(ctx);
}
