// The deliverability check: what in a message's MIME decides how filters score it, so that an operator can
// see why a message would score (docs/reference/delivery-practice.md, "How mailroom writes mail for filters").
// - DKIM: each signature verified against the key published in DNS now (mailauth, through MAILROOM_DNS_SERVERS);
//   a message not yet sent is composed unsigned and says which key would sign it.
// - Alignment: the From domain, the envelope (Return-Path) domain delivery uses, whether they align, and
//   what an unverified Return-Path costs.
// - Header lines over 78 characters (RFC 5322 2.1.1), by field.
// - Tracking: which links delivery turns into click redirects and which it leaves, and why.
// Work is bounded by the message size (one parse, one pass over the header, the linear link scanner).
import type { AppContext } from '../app-context.js';
import { emailDomain } from '../../infra/mime/normalize.js';
import { unalignedCost } from '../domains/alignment.js';
import { envelopeDomain, findSigningKey } from '../sender-signatures/signing.js';
import { rewriteHtmlLinks } from '../tracking/html.js';
import { isTrackableLink } from '../tracking/links.js';
import { rewriteTextLinks } from '../tracking/text.js';
import { messageSource, resolveId, type MessageScope } from './message-source.js';
import { messageNotFound } from '../messages/details.js';

export interface DeliverabilityCheck {
  DKIM: { Signed: boolean; WouldSignWith: string; Signatures: Array<{ Domain: string; Selector: string; Identity: string; Result: string; Comment: string }> };
  Alignment: { FromDomain: string; EnvelopeDomain: string; ReturnPathVerified: boolean; Aligned: boolean; Cost: string };
  Headers: { Limit: 78; Overlong: Array<{ Name: string; Length: number }> };
  Tracking: { TrackOpens: boolean; TrackLinks: string; Tracked: string[]; Untracked: Array<{ Link: string; Reason: string }> };
}

const MAX_LISTED = 200;

function overlongLines(raw: string): Array<{ Name: string; Length: number }> {
  const end = raw.indexOf('\r\n\r\n');
  const head = end === -1 ? raw : raw.slice(0, end);
  const out: Array<{ Name: string; Length: number }> = [];
  let name = '';
  for (const line of head.split('\r\n')) {
    if (!/^[ \t]/.test(line)) name = line.slice(0, Math.max(0, line.indexOf(':')));
    if (line.length > 78 && out.length < MAX_LISTED) out.push({ Name: name, Length: line.length });
  }
  return out;
}

export async function deliverabilityCheck(ctx: AppContext, scope: MessageScope, idOrLatest: string): Promise<DeliverabilityCheck> {
  const id = await resolveId(ctx, scope, idOrLatest);
  const source = await messageSource(ctx, scope, id);
  const m = await ctx.db
    .selectFrom('messages')
    .innerJoin('servers', 'servers.id', 'messages.server_id')
    .select(['messages.id', 'messages.from_email', 'messages.html_body', 'messages.text_body', 'messages.track_opens', 'messages.track_links', 'servers.account_id'])
    .where('messages.server_id', '=', scope.serverId)
    .where('messages.id', '=', id)
    .executeTakeFirst();
  if (!m) throw messageNotFound(id);
  const [envDomain, key] = await Promise.all([envelopeDomain(ctx, m.account_id, m.from_email), findSigningKey(ctx, m.account_id, m.from_email)]);
  const fromDomain = emailDomain(m.from_email);

  // Loaded on the first check, not at start: mailauth and its validation library are a large part of it.
  // Taken from the CommonJS module's default export: a bundle (dist/cli.js) gives a dynamically imported
  // CommonJS module only that one, where Node also lists its properties as named exports.
  const { dkimVerify } = (await import('mailauth/lib/dkim/verify.js')).default;
  const verified = await dkimVerify(source, { resolver: (name: string, rr: string) => ctx.dns.resolve(name, rr as 'TXT') });
  const results = (verified.results ?? []) as Array<{ signingDomain?: string; selector?: string; status: { result: string; comment?: string; aligned?: string }; info?: string }>;
  const identities = source
    .toString('latin1')
    .split('\r\n\r\n', 1)[0]!
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')
    .filter((l) => /^dkim-signature:/i.test(l))
    .map((l) => /[;:]\s*i=\s*([^;\s]*)/i.exec(l)?.[1] ?? '');
  const signatures = results
    .filter((r) => r.status.result !== 'none')
    .map((r, i) => ({ Domain: r.signingDomain ?? '', Selector: r.selector ?? '', Identity: identities[i] ?? '', Result: r.status.result, Comment: r.status.comment ?? '' }));

  const tracked: string[] = [];
  const untracked: Array<{ Link: string; Reason: string }> = [];
  const mode = m.track_links.toLowerCase();
  const consider = (reason: string | null) => (link: string) => {
    if (reason) untracked.push({ Link: link, Reason: reason });
    else if (isTrackableLink(ctx, link)) tracked.push(link);
    else if (/^https?:\/\//i.test(link)) untracked.push({ Link: link, Reason: 'own, unsubscribe or too long' });
    return null;
  };
  if (m.html_body && (mode === 'htmlandtext' || mode === 'htmlonly')) rewriteHtmlLinks(m.html_body, consider(null), (link) => consider('its text is a URL: tracked, text and target would disagree')(link));
  if (m.text_body && (mode === 'htmlandtext' || mode === 'textonly')) rewriteTextLinks(m.text_body, consider(null));

  const rpVerified = envDomain !== ctx.config.returnPathDomain;
  return {
    DKIM: { Signed: signatures.length > 0, WouldSignWith: key ? `d=${key.domainName} s=${key.keySelector}` : '', Signatures: signatures },
    Alignment: {
      FromDomain: fromDomain,
      EnvelopeDomain: envDomain,
      ReturnPathVerified: rpVerified,
      Aligned: envDomain === fromDomain || envDomain.endsWith(`.${fromDomain}`),
      Cost: rpVerified ? '' : unalignedCost(ctx.config.returnPathDomain),
    },
    Headers: { Limit: 78, Overlong: overlongLines(source.toString('latin1')) },
    Tracking: { TrackOpens: m.track_opens === 1, TrackLinks: m.track_links, Tracked: tracked.slice(0, MAX_LISTED), Untracked: untracked.slice(0, MAX_LISTED) },
  };
}
