// What delivery needs from sender signatures and domains: the DKIM key to sign with and the envelope
// domain for the Return-Path. The keys are made by signatures.ts and domain/domains and rotated by
// domain/domains/dkim-state.ts; this file only reads them.
import type { AppContext } from '../app-context.js';
import type { DkimKey } from '../../infra/dkim/sign.js';
import { emailDomain } from '../../infra/mime/normalize.js';

/** The key the delivery worker signs a message with (src/infra/dkim/sign.ts). */
export type SigningKey = DkimKey;

/** The active DKIM key of the From domain within the account, or null when the domain has none. */
export async function findSigningKey(ctx: AppContext, accountId: number, fromEmail: string): Promise<SigningKey | null> {
  const domain = emailDomain(fromEmail);
  const row = await ctx.db
    .selectFrom('dkim_keys')
    .innerJoin('domains', 'domains.id', 'dkim_keys.domain_id')
    .select(['domains.name', 'dkim_keys.selector', 'dkim_keys.private_key'])
    .where('domains.account_id', '=', accountId)
    .where('domains.name', '=', domain)
    .where('dkim_keys.state', '=', 'active')
    .orderBy('dkim_keys.activated_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  return { domainName: row.name, keySelector: row.selector, privateKey: ctx.secrets.open(row.private_key) };
}

/** The envelope (Return-Path) domain: the sender's verified custom Return-Path domain, else the default. */
export async function envelopeDomain(ctx: AppContext, accountId: number, fromEmail: string): Promise<string> {
  const sig = await ctx.db
    .selectFrom('sender_signatures')
    .select(['return_path_domain', 'return_path_verified'])
    .where('account_id', '=', accountId)
    .where('email', '=', fromEmail)
    .executeTakeFirst();
  if (sig && sig.return_path_verified === 1 && sig.return_path_domain) return sig.return_path_domain;
  const dom = await ctx.db
    .selectFrom('domains')
    .select(['return_path_domain', 'return_path_verified'])
    .where('account_id', '=', accountId)
    .where('name', '=', emailDomain(fromEmail))
    .executeTakeFirst();
  if (dom && dom.return_path_verified === 1 && dom.return_path_domain) return dom.return_path_domain;
  return ctx.config.returnPathDomain;
}
