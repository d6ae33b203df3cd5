// Sender signature answers (docs/reference/sender-signatures.md, "Sender signature record"): the list item and
// the full record, whose SPF and DKIM fields are those of the signature's domain.
import type { AppContext } from '../app-context.js';
import { dkimFields, loadDomainKeys } from '../domains/dkim-state.js';
import { spfTextValue } from '../../infra/dns/spf.js';
import type { SignatureRow } from './signatures.js';

export function signatureListItem(r: { id: number; email: string; name: string; reply_to: string; confirmed: number; domain: string }) {
  return { Domain: r.domain, EmailAddress: r.email, ReplyToEmailAddress: r.reply_to, Name: r.name, Confirmed: r.confirmed === 1, ID: r.id };
}

export async function signatureDetail(ctx: AppContext, sig: SignatureRow, o: { withNote?: boolean } = {}): Promise<Record<string, unknown>> {
  const d = await ctx.db.selectFrom('domains').selectAll().where('id', '=', sig.domain_id).executeTakeFirstOrThrow();
  const keys = (await loadDomainKeys(ctx, [d.id])).get(d.id)!;
  // A signature's own Return-Path wins; else the domain's applies (as senders/signing.ts envelopeDomain).
  const own = sig.return_path_domain !== '';
  return {
    Domain: d.name,
    EmailAddress: sig.email,
    ReplyToEmailAddress: sig.reply_to,
    Name: sig.name,
    Confirmed: sig.confirmed === 1,
    SPFVerified: d.spf_verified === 1,
    SPFHost: d.name,
    SPFTextValue: spfTextValue(ctx.config.spfInclude),
    ...(await dkimFields(ctx, d, keys)),
    ReturnPathDomain: own ? sig.return_path_domain : d.return_path_domain,
    ReturnPathDomainVerified: own ? sig.return_path_verified === 1 : d.return_path_verified === 1,
    ReturnPathDomainCNAMEValue: ctx.config.returnPathDomain,
    ID: sig.id,
    ...(o.withNote === false ? {} : { ConfirmationPersonalNote: sig.confirmation_personal_note }),
  };
}
