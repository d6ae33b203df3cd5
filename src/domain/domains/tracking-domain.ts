// Custom tracking domains: a host under the sending domain (links.example.com) with a CNAME to
// mailroom's public host. Once verified, the open pixels, click links and unsubscribe links of mail whose
// From domain is the domain point at https://<host>/ (delivery asks trackingBaseUrl), the HTTP edge serves
// only tracking, unsubscribe and health paths on that host (http/tracking-host.ts), and the operator's TLS
// terminator may obtain a certificate for it (GET /tls/ask).
import type { AppContext } from '../app-context.js';
import { checkCname } from '../../infra/dns/cname.js';
import { emailDomain } from '../../infra/mime/normalize.js';
import { ApiError, ErrorCode } from '../errors.js';
import { isSubdomainOf, MAX_DOMAIN_LENGTH, normalizeDomainName } from './names.js';

/** The name a tracking host's CNAME must point at: the host of MAILROOM_PUBLIC_URL. */
export function trackingCnameTarget(ctx: Pick<AppContext, 'config'>): string {
  return new URL(ctx.config.publicUrl).hostname.toLowerCase();
}

/**
 * '' clears it; otherwise the normalized host. A DNS name strictly under the domain: no scheme, port or
 * path (normalizeDomainName refuses ':' and '/'), not the domain itself. (updateDomain also keeps it apart
 * from the Return-Path host: one name holds one CNAME, RFC 1034 3.6.2.)
 */
export function parseTrackingDomain(input: string, domain: string): string {
  if (input.trim() === '') return '';
  const host = normalizeDomainName(input);
  if (!host || !isSubdomainOf(host, domain)) {
    throw new ApiError(
      ErrorCode.DomainInvalidFields,
      `CustomTrackingDomain must be a host name under ${domain} (for example links.${domain}), without scheme, port or path, with a CNAME record pointing to the service's public host.`,
    );
  }
  return host;
}

/** Stores a parsed tracking host ('' clears it); a changed host is unverified until verifyCustomTracking passes. */
export async function setTrackingDomain(ctx: AppContext, d: { id: number; custom_tracking_domain: string }, host: string): Promise<void> {
  if (host === d.custom_tracking_domain) return;
  await ctx.db
    .updateTable('domains')
    .set({ custom_tracking_domain: host, custom_tracking_verified: 0, custom_tracking_checked_at: null })
    .where('id', '=', d.id)
    .execute();
}

/**
 * Checks the tracking host's CNAME and stores the answer; a temporary DNS failure changes nothing (as the
 * Return-Path check). Conditional on the host still being the one checked: a concurrent change wins.
 */
export async function refreshTrackingDomain(ctx: AppContext, d: { id: number; custom_tracking_domain: string }): Promise<void> {
  if (!d.custom_tracking_domain) return;
  const r = await checkCname(ctx.dns, d.custom_tracking_domain, trackingCnameTarget(ctx));
  ctx.logger.info({ host: d.custom_tracking_domain, result: r }, 'custom tracking domain check');
  const now = ctx.clock.now();
  await ctx.db
    .updateTable('domains')
    .set(r === 'error' ? { custom_tracking_checked_at: now } : { custom_tracking_verified: r === 'pass' ? 1 : 0, custom_tracking_checked_at: now })
    .where('id', '=', d.id)
    .where('custom_tracking_domain', '=', d.custom_tracking_domain)
    .execute();
}

/** The base URL of the tracking links of mail from `fromEmail`: https://<verified host>, or null for the public URL. */
export async function trackingBaseUrl(ctx: AppContext, accountId: number, fromEmail: string): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('domains')
    .select(['custom_tracking_domain'])
    .where('account_id', '=', accountId)
    .where('name', '=', emailDomain(fromEmail))
    .where('custom_tracking_verified', '=', 1)
    .where('custom_tracking_domain', '!=', '')
    .executeTakeFirst();
  return row ? `https://${row.custom_tracking_domain}` : null;
}

/** Every verified tracking host (lowercased): the HTTP edge's Host check keeps them in a small cache. */
export async function verifiedTrackingHosts(ctx: AppContext): Promise<Set<string>> {
  const rows = await ctx.db
    .selectFrom('domains')
    .select('custom_tracking_domain')
    .where('custom_tracking_verified', '=', 1)
    .where('custom_tracking_domain', '!=', '')
    .execute();
  return new Set(rows.map((r) => r.custom_tracking_domain));
}

/** Whether `host` is a verified tracking host (GET /tls/ask): one indexed look-up. */
export async function isVerifiedTrackingHost(ctx: AppContext, host: string): Promise<boolean> {
  const name = host.length <= MAX_DOMAIN_LENGTH ? normalizeDomainName(host) : null;
  if (!name) return false;
  const row = await ctx.db
    .selectFrom('domains')
    .select('id')
    .where('custom_tracking_domain', '=', name)
    .where('custom_tracking_verified', '=', 1)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether `host` (a verified tracking host, lowercased) is the tracking host of the mail `messageId`: the one
 * delivery put in its links (trackingBaseUrl: the From domain of the message's account). A signed token is
 * genuine on every host, so without this a customer's branded host would redirect to, count and unsubscribe
 * for any other account's mail (an open redirect under their name). A message gone by retention cannot be
 * placed, so its links answer only on the public host.
 */
export async function isTrackingHostOf(ctx: AppContext, host: string, messageId: string): Promise<boolean> {
  const m = await ctx.db
    .selectFrom('messages')
    .innerJoin('servers', 'servers.id', 'messages.server_id')
    .select(['servers.account_id', 'messages.from_email'])
    .where('messages.id', '=', messageId)
    .executeTakeFirst();
  if (!m) return false;
  const row = await ctx.db
    .selectFrom('domains')
    .select('id')
    .where('account_id', '=', m.account_id)
    .where('name', '=', emailDomain(m.from_email))
    .where('custom_tracking_domain', '=', host)
    .where('custom_tracking_verified', '=', 1)
    .executeTakeFirst();
  return row !== undefined;
}
