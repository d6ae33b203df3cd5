// Domains of an account (docs/reference/domains.md): creation with its first DKIM key, Return-Path
// settings, deletion, and the DNS verifications. Every query is scoped to the caller's account.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { isUniqueViolation } from '../../infra/db/util.js';
import { generateDkimKey, insertPendingKey, type NewKey } from '../../infra/dkim/keys.js';
import { checkSpf, spfTextValue } from '../../infra/dns/spf.js';
import { ApiError, ErrorCode } from '../errors.js';
import { loadDomainKeys, startRenewal, verifyPendingKey } from './dkim-state.js';
import { isPublicDomain, MAX_DOMAIN_LENGTH, normalizeDomainName } from './names.js';
import { parseReturnPathDomain, refreshDomainReturnPath } from './return-path.js';
import { parseTrackingDomain, refreshTrackingDomain, setTrackingDomain } from './tracking-domain.js';
import { refreshDmarc } from '../dmarc/dns-record.js';
import { deleteDomainReports } from '../dmarc/retention.js';
import type { DomainRow } from './view.js';

export async function getDomain(ctx: AppContext, accountId: number, id: number): Promise<DomainRow> {
  const row = await ctx.db.selectFrom('domains').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  if (!row) throw new ApiError(ErrorCode.DomainNotFound, 'Domain not found.');
  return row;
}

export async function listDomains(ctx: AppContext, accountId: number, count: number, offset: number): Promise<{ total: number; rows: DomainRow[] }> {
  const total = await ctx.db
    .selectFrom('domains')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  const rows = await ctx.db.selectFrom('domains').selectAll().where('account_id', '=', accountId).orderBy('id').limit(count).offset(offset).execute();
  return { total: Number(total.n), rows };
}

/** Inserts a domain and its first (pending) DKIM key inside the caller's transaction. */
export async function insertDomain(trx: Kysely<Database>, ctx: AppContext, accountId: number, name: string, key: NewKey, returnPath = ''): Promise<number> {
  const now = ctx.clock.now();
  const row = await trx
    .insertInto('domains')
    .values({ account_id: accountId, name, return_path_domain: returnPath, dkim_update_status: 'Pending', created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await insertPendingKey(trx, ctx, row.id, key, now);
  return row.id;
}

/** Validates a domain name as POST /domains takes it (514, 515, 516, 503). */
export function parseDomainName(input: unknown): string {
  if (typeof input !== 'string' || input.trim() === '') throw new ApiError(ErrorCode.DomainNameRequired, 'Name is required.');
  if (input.length > MAX_DOMAIN_LENGTH) throw new ApiError(ErrorCode.DomainNameTooLong, `Name must be at most ${MAX_DOMAIN_LENGTH} characters.`);
  const name = normalizeDomainName(input);
  if (!name) throw new ApiError(ErrorCode.DomainNameInvalid, `'${input.slice(0, 100)}' is not a valid domain name.`);
  if (isPublicDomain(name)) throw new ApiError(ErrorCode.PublicDomainNotAllowed, `${name} is a public mailbox provider; use a domain you control.`);
  return name;
}

export async function createDomain(ctx: AppContext, accountId: number, body: { Name?: unknown; ReturnPathDomain?: string | null }): Promise<DomainRow> {
  const name = parseDomainName(body.Name);
  const returnPath = body.ReturnPathDomain ? parseReturnPathDomain(body.ReturnPathDomain, name, ErrorCode.DomainInvalidFields) : '';
  const exists = () => new ApiError(ErrorCode.DomainExists, `The domain ${name} already exists in this account.`);
  const clash = await ctx.db.selectFrom('domains').select('id').where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
  if (clash) throw exists();
  const key = await generateDkimKey(ctx.clock.now());
  let id: number;
  try {
    id = await ctx.db.transaction().execute((trx) => insertDomain(trx, ctx, accountId, name, key, returnPath));
  } catch (err) {
    if (isUniqueViolation(err)) throw exists();
    throw err;
  }
  if (returnPath) await refreshDomainReturnPath(ctx, { id, return_path_domain: returnPath });
  return getDomain(ctx, accountId, id);
}

export async function updateDomain(
  ctx: AppContext,
  accountId: number,
  id: number,
  body: { ReturnPathDomain?: string | null; CustomTrackingDomain?: string | null },
): Promise<DomainRow> {
  const d = await getDomain(ctx, accountId, id);
  // Both fields are checked before either is written: a refused field changes nothing.
  const returnPath = body.ReturnPathDomain == null ? d.return_path_domain : parseReturnPathDomain(body.ReturnPathDomain, d.name, ErrorCode.DomainInvalidFields);
  const tracking = body.CustomTrackingDomain == null ? d.custom_tracking_domain : parseTrackingDomain(body.CustomTrackingDomain, d.name);
  if (returnPath !== '' && returnPath === tracking) throw new ApiError(ErrorCode.DomainInvalidFields, 'ReturnPathDomain and CustomTrackingDomain must be different hosts (each needs its own CNAME record).');
  if (tracking !== d.custom_tracking_domain) await setTrackingDomain(ctx, d, tracking);
  if (returnPath !== d.return_path_domain) {
    await ctx.db.updateTable('domains').set({ return_path_domain: returnPath, return_path_verified: 0, return_path_checked_at: null }).where('id', '=', id).execute();
    if (returnPath) await refreshDomainReturnPath(ctx, { id, return_path_domain: returnPath });
  }
  return getDomain(ctx, accountId, id);
}

/** Deletes a domain with its keys and the sender signatures at it, in one transaction. */
export async function deleteDomain(ctx: AppContext, accountId: number, id: number): Promise<string> {
  const d = await getDomain(ctx, accountId, id);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('sender_signatures').where('domain_id', '=', id).where('account_id', '=', accountId).execute();
    await trx.deleteFrom('dkim_keys').where('domain_id', '=', id).execute();
    await deleteDomainReports(trx, id);
    await trx.deleteFrom('domains').where('id', '=', id).where('account_id', '=', accountId).execute();
  });
  return d.name;
}

/** PUT verifyDkim: checks the pending key in DNS (activating it when published). */
export async function verifyDomainDkim(ctx: AppContext, accountId: number, id: number): Promise<DomainRow> {
  const d = await getDomain(ctx, accountId, id);
  const keys = (await loadDomainKeys(ctx, [id])).get(id)!;
  if (keys.pending) await verifyPendingKey(ctx, d, keys.pending);
  return getDomain(ctx, accountId, id);
}

export async function rotateDomainDkim(ctx: AppContext, accountId: number, id: number): Promise<DomainRow> {
  const d = await getDomain(ctx, accountId, id);
  await startRenewal(ctx, d);
  return getDomain(ctx, accountId, id);
}

/**
 * SPF check of a domain. The stored flag follows the latest definite answer (a temporary DNS failure
 * changes nothing), so that a record removed later shows as unverified; the signatures at the domain
 * share it.
 */
export async function verifyDomainSpf(ctx: AppContext, d: DomainRow): Promise<{ SPFHost: string; SPFVerified: boolean; SPFTextValue: string }> {
  const outcome = await checkSpf(ctx.dns, d.name, ctx.config.spfInclude);
  ctx.logger.info({ domain: d.name, result: outcome.result, lookups: outcome.lookups, reason: outcome.reason }, 'SPF check');
  if (outcome.result !== 'error') {
    const flag = outcome.result === 'pass' ? 1 : 0;
    await ctx.db.transaction().execute(async (trx) => {
      await trx.updateTable('domains').set({ spf_verified: flag }).where('id', '=', d.id).execute();
      await trx.updateTable('sender_signatures').set({ spf_verified: flag }).where('domain_id', '=', d.id).execute();
    });
  }
  return { SPFHost: d.name, SPFVerified: outcome.result === 'pass', SPFTextValue: spfTextValue(ctx.config.spfInclude) };
}

/** PUT /domains/{id}/verifyDmarc: reads _dmarc.<domain> now (the periodic re-check does it hourly). */
export async function verifyDomainDmarc(ctx: AppContext, accountId: number, id: number): Promise<DomainRow> {
  const d = await getDomain(ctx, accountId, id);
  await refreshDmarc(ctx, d);
  return getDomain(ctx, accountId, id);
}

export async function verifyDomainReturnPath(ctx: AppContext, accountId: number, id: number): Promise<DomainRow> {
  const d = await getDomain(ctx, accountId, id);
  await refreshDomainReturnPath(ctx, d);
  return getDomain(ctx, accountId, id);
}

/** PUT verifyCustomTracking: checks the tracking host's CNAME (tracking-domain.ts). */
export async function verifyDomainCustomTracking(ctx: AppContext, accountId: number, id: number): Promise<DomainRow> {
  const d = await getDomain(ctx, accountId, id);
  await refreshTrackingDomain(ctx, d);
  return getDomain(ctx, accountId, id);
}
