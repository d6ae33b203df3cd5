// The MTA-STS policy in force for a recipient domain (RFC 8461 5.1): the cached one while its id matches the
// published TXT record and its max_age has not run out; otherwise a fresh fetch. A failed look-up or fetch
// falls back to an unexpired cached policy, so an attacker who blocks DNS or HTTPS cannot strip a policy
// that was already seen (the point of caching, RFC 8461 10.2).
import type { Kysely } from 'kysely';
import type { Database } from '../../../infra/db/schema.js';
import { fetchStsPolicy, lookupStsId, type StsFetchOptions } from './fetch.js';
import type { StsMode, StsPolicy } from './policy.js';

export interface PolicyInForce {
  policy: StsPolicy;
  id: string;
  /** Fresh from the policy host now, or from the cache. */
  fetched: boolean;
}

export interface StsLookup {
  db: Kysely<Database>;
  fetch: StsFetchOptions;
  now: number;
  /** Told when the domain names a policy that cannot be fetched (TLS-RPT's sts-policy-fetch-error). */
  onFetchError?: (err: unknown) => void;
  /** Do not fetch (a fetch failed a moment ago): as if the fetch failed again. */
  fetchBlocked?: boolean;
}

async function cached(db: Kysely<Database>, domain: string, now: number): Promise<PolicyInForce | null> {
  const row = await db.selectFrom('mta_sts_policies').selectAll().where('domain', '=', domain).executeTakeFirst();
  if (!row || row.expires_at <= now) return null;
  return { id: row.policy_id, fetched: false, policy: { mode: row.mode as StsMode, mx: JSON.parse(row.mx) as string[], maxAge: row.max_age } };
}

/** The policy to apply to mail for `domain`, or null when it has none. Never throws. */
export async function policyFor(domain: string, o: StsLookup): Promise<PolicyInForce | null> {
  const d = domain.toLowerCase();
  const known = await cached(o.db, d, o.now);
  let id: string | null;
  try {
    id = await lookupStsId(o.fetch.dns, d);
  } catch {
    return known; // DNS failed: keep what was seen
  }
  if (id === null) return known; // RFC 8461 3.1: a vanished record does not end a cached policy early
  if (known && known.id === id) return known;
  try {
    if (o.fetchBlocked) throw new Error(`the policy of ${d} could not be fetched a moment ago; not asked again yet`);
    const policy = await fetchStsPolicy(d, o.fetch);
    const row = {
      policy_id: id,
      mode: policy.mode,
      mx: JSON.stringify(policy.mx),
      max_age: policy.maxAge,
      fetched_at: o.now,
      expires_at: o.now + policy.maxAge * 1000,
    };
    await o.db
      .insertInto('mta_sts_policies')
      .values({ domain: d, ...row })
      .onConflict((oc) => oc.column('domain').doUpdateSet(row))
      .execute();
    return { policy, id, fetched: true };
  } catch (err) {
    o.onFetchError?.(err);
    return known;
  }
}
