// Start-time checks of the IP pools, run by the worker before it claims a job: every address must belong
// to this machine (else each connection would fail with EADDRNOTAVAIL and the mail would only be retried),
// and pool names assigned to servers or streams but missing from the setting are named in a warning.
import { createServer } from 'node:net';
import type { AppContext } from '../../app-context.js';
import { findPool, IpPoolsError, type IpPool } from './parse.js';

/** Listens on port 0 of the address for a moment: the kernel refuses an address that is not local. */
function bindable(address: string): Promise<string | null> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    srv.listen({ host: address, port: 0, exclusive: true }, () => srv.close(() => resolve(null)));
  });
}

/** Throws IpPoolsError naming every address that cannot be used as a source address here. */
export async function checkPoolAddresses(pools: readonly IpPool[]): Promise<void> {
  const bad: string[] = [];
  for (const p of pools) {
    for (const a of p.addresses) {
      const why = await bindable(a);
      if (why) bad.push(`${a} (pool ${p.name}: ${why === 'EADDRNOTAVAIL' ? 'not an address of this machine' : why})`);
    }
  }
  if (bad.length > 0) throw new IpPoolsError(`cannot send from ${bad.join(', ')}`);
}

/** Servers and streams whose IpPool is not (or no longer) configured: they send from the default address. */
export async function staleAssignments(ctx: AppContext): Promise<string[]> {
  const [servers, streams] = await Promise.all([
    ctx.db.selectFrom('servers').select(['id', 'ip_pool']).where('ip_pool', 'is not', null).execute(),
    ctx.db.selectFrom('message_streams').select(['server_id', 'id', 'ip_pool']).where('ip_pool', 'is not', null).execute(),
  ]);
  const missing = (name: string | null) => name !== null && !findPool(ctx.config.ipPools, name);
  return [
    ...servers.filter((s) => missing(s.ip_pool)).map((s) => `server ${s.id} (${s.ip_pool})`),
    ...streams.filter((s) => missing(s.ip_pool)).map((s) => `stream ${s.id} of server ${s.server_id} (${s.ip_pool})`),
  ];
}

/** Both checks: throws IpPoolsError for an address that is not local, warns about stale assignments. */
export async function checkIpPools(ctx: AppContext): Promise<void> {
  await checkPoolAddresses(ctx.config.ipPools);
  const stale = await staleAssignments(ctx);
  if (stale.length > 0) {
    ctx.logger.warn({ assignments: stale }, `IP pools not in MAILROOM_IP_POOLS are assigned to ${stale.join(', ')}: their mail leaves from the default address`);
  }
}
