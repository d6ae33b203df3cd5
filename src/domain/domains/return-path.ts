// Custom Return-Path (envelope) domains: a subdomain of the sending domain with a CNAME to the service's
// bounce domain (MAILROOM_RETURN_PATH_DOMAIN). Aligned with the From domain it lets the message pass
// DMARC's SPF alignment (RFC 7489 3.1.2), and the CNAME brings its bounces back to mailroom.
import type { AppContext } from '../app-context.js';
import { checkCname, type CheckResult } from '../../infra/dns/cname.js';
import { ApiError } from '../errors.js';
import { isSubdomainOf, normalizeDomainName } from './names.js';

/** '' clears it; otherwise the normalized host, or ApiError(code) when it is not a subdomain of `domain`. */
export function parseReturnPathDomain(input: string, domain: string, code: number): string {
  if (input.trim() === '') return '';
  const host = normalizeDomainName(input);
  if (!host || !isSubdomainOf(host, domain)) {
    throw new ApiError(code, `ReturnPathDomain must be a subdomain of ${domain} (for example pm-bounces.${domain}) with a CNAME record pointing to the service's bounce domain.`);
  }
  return host;
}

export function checkReturnPath(ctx: AppContext, host: string): Promise<CheckResult> {
  return checkCname(ctx.dns, host, ctx.config.returnPathDomain);
}

/** Re-checks a domain's Return-Path CNAME and stores the answer (a temporary DNS failure changes nothing). */
export async function refreshDomainReturnPath(ctx: AppContext, domain: { id: number; return_path_domain: string }): Promise<void> {
  if (!domain.return_path_domain) return;
  const r = await checkReturnPath(ctx, domain.return_path_domain);
  const now = ctx.clock.now();
  await ctx.db
    .updateTable('domains')
    .set(r === 'error' ? { return_path_checked_at: now } : { return_path_verified: r === 'pass' ? 1 : 0, return_path_checked_at: now })
    .where('id', '=', domain.id)
    .where('return_path_domain', '=', domain.return_path_domain)
    .execute();
}

/** The same for a sender signature's own Return-Path domain. */
export async function refreshSignatureReturnPath(ctx: AppContext, sig: { id: number; return_path_domain: string }): Promise<void> {
  if (!sig.return_path_domain) return;
  const r = await checkReturnPath(ctx, sig.return_path_domain);
  const now = ctx.clock.now();
  await ctx.db
    .updateTable('sender_signatures')
    .set(r === 'error' ? { return_path_checked_at: now } : { return_path_verified: r === 'pass' ? 1 : 0, return_path_checked_at: now })
    .where('id', '=', sig.id)
    .where('return_path_domain', '=', sig.return_path_domain)
    .execute();
}
