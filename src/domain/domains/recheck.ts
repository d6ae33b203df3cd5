// The periodic DNS re-check: activates pending DKIM keys once their record appears (users publish DNS
// records and rarely come back to press "verify"), follows custom Return-Path CNAMEs (a removed CNAME
// stops the domain being used as envelope domain, or its bounces would be lost) and verified custom tracking
// hosts (a removed CNAME would leave new mail with links nobody answers), reads each domain's DMARC record
// (its policy), and marks revoked keys
// safe to remove once queued mail no longer needs them. Idempotent and safe with several workers.
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { PeriodicTask } from '../../infra/jobs/scheduler.js';
import { revokedKeyRemovable, verifyPendingKey } from './dkim-state.js';
import { refreshDomainReturnPath, refreshSignatureReturnPath } from './return-path.js';
import { refreshTrackingDomain } from './tracking-domain.js';
import { refreshDmarc } from '../dmarc/dns-record.js';

export const RECHECK_EVERY_MS = 5 * 60_000;
/** A verified Return-Path is confirmed hourly; an unverified one (and pending keys) every run. */
const VERIFIED_RECHECK_MS = 60 * 60_000;
const BATCH = 100;

/** A DKIM key with the domain it signs for: what verifying or retiring a key needs. */
const KEY_WITH_DOMAIN = [
  'dkim_keys.id', 'dkim_keys.domain_id', 'dkim_keys.selector', 'dkim_keys.public_key', 'dkim_keys.bits', 'dkim_keys.state',
  'dkim_keys.activated_at', 'dkim_keys.revoked_at', 'dkim_keys.removable_at',
  'domains.account_id', 'domains.name', 'domains.dkim_verified',
] as const;

export async function recheckDns(ctx: AppContext, now: number): Promise<void> {
  const due = now - RECHECK_EVERY_MS + 1000;
  const pending = await ctx.db
    .selectFrom('dkim_keys')
    .innerJoin('domains', 'domains.id', 'dkim_keys.domain_id')
    .select(KEY_WITH_DOMAIN)
    .where('dkim_keys.state', '=', 'pending')
    .where(sql<number>`coalesce(dkim_keys.checked_at, 0)`, '<=', due)
    .orderBy(sql`coalesce(dkim_keys.checked_at, 0)`)
    .limit(BATCH)
    .execute();
  for (const k of pending) {
    await verifyPendingKey(ctx, { id: k.domain_id, account_id: k.account_id, name: k.name, dkim_verified: k.dkim_verified }, k);
  }

  const rpDue = (verified: 'return_path_verified', checked: 'return_path_checked_at') =>
    sql<boolean>`(${sql.ref(verified)} = 0 and coalesce(${sql.ref(checked)}, 0) <= ${due}) or coalesce(${sql.ref(checked)}, 0) <= ${now - VERIFIED_RECHECK_MS}`;
  // Domains and sender signatures each may carry a custom Return-Path; both are re-checked alike.
  const returnPathOwners = [
    ['domains', refreshDomainReturnPath],
    ['sender_signatures', refreshSignatureReturnPath],
  ] as const;
  for (const [table, refresh] of returnPathOwners) {
    const rows = await ctx.db
      .selectFrom(table)
      .select(['id', 'return_path_domain'])
      .where('return_path_domain', '!=', '')
      .where(rpDue('return_path_verified', 'return_path_checked_at'))
      .limit(BATCH)
      .execute();
    for (const row of rows) await refresh(ctx, row);
  }

  // Only verified tracking hosts: an unverified one waits for its owner's verifyCustomTracking.
  const tracking = await ctx.db
    .selectFrom('domains')
    .select(['id', 'custom_tracking_domain'])
    .where('custom_tracking_domain', '!=', '')
    .where('custom_tracking_verified', '=', 1)
    .where(sql<number>`coalesce(custom_tracking_checked_at, 0)`, '<=', now - VERIFIED_RECHECK_MS)
    .limit(BATCH)
    .execute();
  for (const row of tracking) await refreshTrackingDomain(ctx, row);

  // DMARC records (domain/dmarc/dns-record.ts): one not (yet) naming mailroom's report address every run,
  // a verified one hourly, so that a changed policy or a removed record shows within the hour.
  const dmarc = await ctx.db
    .selectFrom('domains')
    .select(['id', 'name'])
    .where(sql<boolean>`(dmarc_verified = 0 and coalesce(dmarc_checked_at, 0) <= ${due}) or coalesce(dmarc_checked_at, 0) <= ${now - VERIFIED_RECHECK_MS}`)
    .orderBy(sql`coalesce(dmarc_checked_at, 0)`)
    .limit(BATCH)
    .execute();
  for (const row of dmarc) await refreshDmarc(ctx, row);

  const revoked = await ctx.db
    .selectFrom('dkim_keys')
    .innerJoin('domains', 'domains.id', 'dkim_keys.domain_id')
    .select(KEY_WITH_DOMAIN)
    .where('dkim_keys.state', '=', 'revoked')
    .where('dkim_keys.removable_at', 'is', null)
    .limit(BATCH)
    .execute();
  for (const k of revoked) {
    await revokedKeyRemovable(ctx, { id: k.domain_id, account_id: k.account_id, name: k.name, dkim_verified: k.dkim_verified }, k);
  }
}

export function dnsRecheckTask(ctx: AppContext): PeriodicTask {
  return { name: 'dns-recheck', everyMs: RECHECK_EVERY_MS, run: (now) => recheckDns(ctx, now) };
}
