// The pool a message leaves from: its stream's, else its server's, else none (the OS chooses the address).
import type { AppContext } from '../../app-context.js';
import { findPool, type IpPool } from './parse.js';

/**
 * A name no longer in MAILROOM_IP_POOLS (the setting changed after it was assigned) sends from the default
 * address rather than holding the mail; the worker warns about such assignments when it starts
 * (check.ts), so the line here is only at debug level.
 */
export function sourcePool(ctx: AppContext, streamPool: string | null | undefined, serverPool: string | null | undefined): IpPool | null {
  const name = streamPool || serverPool;
  if (!name) return null;
  const pool = findPool(ctx.config.ipPools, name);
  if (!pool) ctx.logger.debug({ ipPool: name }, 'delivery: IP pool not configured, sending from the default address');
  return pool ?? null;
}
