// The DKIM key life cycle of a domain (docs/reference/sender-signatures.md, "Sender signature DKIM"):
//   pending --(DNS shows the pending value)--> active --(a newer key is activated)--> revoked
// Exactly one key signs at a time (the active one, see senders/signing.ts); a renewal adds a pending key
// that only takes over once its record is published, so mail never carries a signature that fails.
import { sql, type Expression, type Selectable } from 'kysely';
import type { AppContext } from '../app-context.js';
import { dkimHost, dkimTextValue, generateDkimKey, insertPendingKey, WEAK_DKIM_BITS } from '../../infra/dkim/keys.js';
import { checkDkimRecord } from '../../infra/dns/dkim-record.js';
import type { CheckResult } from '../../infra/dns/cname.js';
import { DELIVERY_QUEUES } from '../delivery/jobs.js';
import type { Database } from '../../infra/db/schema.js';
import { isUniqueViolation } from '../../infra/db/util.js';
import { hasJobConcerning } from '../../infra/jobs/find.js';
import { ApiError, ErrorCode } from '../errors.js';

export type KeyRow = Pick<Selectable<Database['dkim_keys']>, 'id' | 'domain_id' | 'selector' | 'public_key' | 'bits' | 'state' | 'activated_at' | 'revoked_at' | 'removable_at'>;

export interface DomainKeys {
  active: KeyRow | null;
  pending: KeyRow | null;
  /** The most recently revoked key (the one still shown for removal from DNS). */
  revoked: KeyRow | null;
}

/** The current keys of each domain (revoked keys other than the latest are history). */
export async function loadDomainKeys(ctx: AppContext, domainIds: number[]): Promise<Map<number, DomainKeys>> {
  const out = new Map<number, DomainKeys>(domainIds.map((id) => [id, { active: null, pending: null, revoked: null }]));
  if (domainIds.length === 0) return out;
  const rows = await ctx.db
    .selectFrom('dkim_keys')
    .select(['id', 'domain_id', 'selector', 'public_key', 'bits', 'state', 'activated_at', 'revoked_at', 'removable_at'])
    .where('domain_id', 'in', domainIds)
    .orderBy('id')
    .execute();
  for (const r of rows) {
    const k = out.get(r.domain_id)!;
    if (r.state === 'pending') k.pending = r;
    else if (r.state === 'active') k.active = r;
    else if (r.state === 'revoked' && (!k.revoked || (r.revoked_at ?? 0) >= (k.revoked.revoked_at ?? 0))) k.revoked = r;
  }
  return out;
}

export interface DomainRef {
  id: number;
  account_id: number;
  name: string;
  dkim_verified: number;
}

/** The DKIM fields of a domain or sender signature answer. */
export async function dkimFields(ctx: AppContext, domain: DomainRef, keys: DomainKeys): Promise<Record<string, unknown>> {
  const { active, pending, revoked } = keys;
  const shown = active ?? pending;
  return {
    DKIMVerified: domain.dkim_verified === 1,
    WeakDKIM: shown ? shown.bits < WEAK_DKIM_BITS : false,
    DKIMHost: active ? dkimHost(active.selector, domain.name) : '',
    DKIMTextValue: active ? dkimTextValue(active.public_key) : '',
    DKIMPendingHost: pending ? dkimHost(pending.selector, domain.name) : '',
    DKIMPendingTextValue: pending ? dkimTextValue(pending.public_key) : '',
    DKIMRevokedHost: revoked ? dkimHost(revoked.selector, domain.name) : '',
    DKIMRevokedTextValue: revoked ? dkimTextValue(revoked.public_key) : '',
    SafeToRemoveRevokedKeyFromDNS: revoked ? await revokedKeyRemovable(ctx, domain, revoked) : false,
    // 'Verified' after a renewal completes: the value the hosted service shows (the API leaves it open:
    // docs/reference/sender-signatures.md).
    DKIMUpdateStatus: pending ? 'Pending' : active ? 'Verified' : null,
  };
}

/**
 * A revoked key may leave DNS once no mail accepted before its revocation is still queued for delivery:
 * such mail may have been (or be being) signed with it while receivers still check. Once true it stays
 * true (later mail is signed with the new key), so it is stored and the query runs at most until then.
 */
export async function revokedKeyRemovable(ctx: AppContext, domain: DomainRef, key: KeyRow): Promise<boolean> {
  if (key.removable_at !== null) return true;
  const pattern = `%@${domain.name.replace(/[\\%_]/g, (c) => `\\${c}`)}`;
  const fromThisDomain = (messageId: Expression<string>) =>
    ctx.db
      .selectFrom('messages')
      .innerJoin('servers', 'servers.id', 'messages.server_id')
      .select('messages.id')
      .where('messages.id', '=', messageId)
      .where('servers.account_id', '=', domain.account_id)
      .where(sql<boolean>`lower(messages.from_email) like ${pattern} escape '\\'`);
  for (const queue of DELIVERY_QUEUES) {
    if (await hasJobConcerning(ctx.db, { queue, createdAtMost: key.revoked_at ?? 0, message: fromThisDomain })) return false;
  }
  const now = ctx.clock.now();
  await ctx.db.updateTable('dkim_keys').set({ removable_at: now }).where('id', '=', key.id).where('removable_at', 'is', null).execute();
  key.removable_at = now;
  return true;
}

/**
 * Checks DNS for the domain's pending key; when its record is published, activates it and revokes the
 * previous one in one transaction. Safe to run concurrently (the state change is conditional).
 */
export async function verifyPendingKey(ctx: AppContext, domain: DomainRef, pending: KeyRow): Promise<CheckResult> {
  const result = await checkDkimRecord(ctx.dns, dkimHost(pending.selector, domain.name), pending.public_key);
  const now = ctx.clock.now();
  if (result !== 'pass') {
    await ctx.db.updateTable('dkim_keys').set({ checked_at: now }).where('id', '=', pending.id).execute();
    return result;
  }
  await ctx.db.transaction().execute(async (trx) => {
    const took = await trx
      .updateTable('dkim_keys')
      .set({ state: 'active', activated_at: now, checked_at: now })
      .where('id', '=', pending.id)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    if (Number(took.numUpdatedRows) !== 1) return; // another worker completed it
    await trx
      .updateTable('dkim_keys')
      .set({ state: 'revoked', revoked_at: now })
      .where('domain_id', '=', domain.id)
      .where('state', '=', 'active')
      .where('id', '!=', pending.id)
      .execute();
    await trx.updateTable('domains').set({ dkim_verified: 1, dkim_update_status: 'Verified' }).where('id', '=', domain.id).execute();
  });
  ctx.logger.info({ domain: domain.name, selector: pending.selector }, 'DKIM key activated');
  return 'pass';
}

/**
 * Starts a renewal: a new pending key. While one runs it is refused with ErrorCode 505, an API error (422)
 * like any other; POST /senders/{id}/requestnewdkim, whose answer is a result body, reports it there.
 */
export async function startRenewal(ctx: AppContext, domain: DomainRef): Promise<void> {
  const refuse = () => new ApiError(ErrorCode.DkimRenewalScheduled, 'This DKIM is already being renewed.');
  const running = await ctx.db.selectFrom('dkim_keys').select('id').where('domain_id', '=', domain.id).where('state', '=', 'pending').executeTakeFirst();
  if (running) throw refuse();
  const key = await generateDkimKey(ctx.clock.now());
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await insertPendingKey(trx, ctx, domain.id, key, ctx.clock.now());
      await trx.updateTable('domains').set({ dkim_update_status: 'Pending' }).where('id', '=', domain.id).execute();
    });
  } catch (err) {
    // The partial unique index dkim_keys_one_pending: a concurrent request started one first.
    if (isUniqueViolation(err)) throw refuse();
    throw err;
  }
}
