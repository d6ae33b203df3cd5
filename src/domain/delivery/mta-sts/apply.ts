// The MTA-STS policy delivery applies to a recipient domain (RFC 8461 5): found through the app's resolver
// (MAILROOM_DNS_SERVERS), fetched over HTTPS (port 443 per RFC 8461 3.3, config.mtaStsPort; trusting
// MAILROOM_TLS_CA_FILE as well as the bundled roots) and cached in the database per its max_age (cache.ts).
import type { AppContext } from '../../app-context.js';
import { policyFor } from './cache.js';
import { mxMatches, type StsMode, type StsPolicy } from './policy.js';
import type { StsTarget } from './tls-record.js';
import type { StsFetchFailures } from './fetch-failures.js';

export interface AppliedPolicy {
  mode: StsMode;
  policy: StsPolicy | null;
  /** A policy is published but could not be fetched, and none was cached: delivery goes on as without one. */
  fetchError: string | null;
}

export async function stsPolicyFor(ctx: AppContext, domain: string, failures: StsFetchFailures): Promise<AppliedPolicy> {
  const d = domain.toLowerCase();
  const now = ctx.clock.now();
  let fetchError: string | null = null;
  const blocked = failures.blocked(d, now);
  const inForce = await policyFor(d, {
    db: ctx.db,
    now,
    fetch: { dns: ctx.dns, port: ctx.config.mtaStsPort, ca: ctx.config.tlsCa?.pem ?? null, timeoutMs: 10_000 },
    // A recent failure: a cached policy still applies, otherwise the failure is reported again without a request.
    fetchBlocked: blocked,
    onFetchError: (err) => {
      fetchError = err instanceof Error ? err.message : String(err);
      if (!blocked) failures.failed(d, now);
    },
  }).catch(() => null); // the cache table unreachable: deliver as without a policy rather than not at all
  if (!inForce) return { mode: 'none', policy: null, fetchError };
  return { mode: inForce.policy.mode, policy: inForce.policy, fetchError: null };
}

/** How the policy applies to one MX host. */
export function stsTarget(p: AppliedPolicy, host: string): StsTarget {
  const listed = p.mode === 'none' || !p.policy || mxMatches(p.policy, host);
  return { mode: p.mode, listed, fetchError: p.fetchError };
}
