// The DMARC record each domain publishes (RFC 7489 6.1, 6.3): `_dmarc.<domain>` TXT
// `v=DMARC1; p=none; rua=mailto:<the domain's report address>`, beside the DKIM and Return-Path records, and
// what is found there: DMARCVerified when the one DMARC record (6.6.3: several records count as none) names
// the domain's report address in rua, DMARCPolicy its p= (what receivers apply to failing mail).
//
// When the report address's domain is not the domain itself or under it, receivers send reports only if the
// report domain authorises them (7.1): `<domain>._report._dmarc.<report domain>` TXT `v=DMARC1`. That record
// belongs in the zone of mailroom's report domain (the operator's, not the customer's); the domain's answer
// shows it so that it can be published (or covered once by a wildcard `*._report._dmarc.<report domain>`).
import type { AppContext } from '../app-context.js';
import { lookupTxt } from '../../infra/dns/lookup.js';
import { domainReportAddress } from './report-address.js';

export const POLICIES = ['none', 'quarantine', 'reject'] as const;

/** The tags of a DMARC record (6.4: tag=value pairs separated by ';'); one split per separator. */
export function dmarcTags(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim().toLowerCase();
    if (k && !tags.has(k)) tags.set(k, part.slice(eq + 1).trim());
  }
  return tags;
}

/** The mailto addresses of a rua value (6.4: comma-separated URIs, each may end in !<size>). */
export function ruaAddresses(rua: string): string[] {
  return rua
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u.toLowerCase().startsWith('mailto:'))
    .map((u) => decodeURIComponentSafe(u.slice(7).replace(/!.*$/, '')).toLowerCase());
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export interface DmarcDnsFields {
  DMARCHost: string;
  DMARCTextValue: string;
  DMARCVerified: boolean;
  DMARCPolicy: string;
  DMARCReportAuthorizationHost: string;
  DMARCReportAuthorizationTextValue: string;
}

/** Whether receivers need the report domain's authorization record for `domain` (7.1). */
export function needsAuthorization(domain: string, reportDomain: string): boolean {
  return reportDomain !== domain && !reportDomain.endsWith(`.${domain}`);
}

export function dmarcFields(ctx: Pick<AppContext, 'config' | 'secrets'>, d: { id: number; name: string; dmarc_verified: number; dmarc_policy: string }): DmarcDnsFields {
  const reportDomain = ctx.config.dmarc.report.domain;
  const external = needsAuthorization(d.name, reportDomain);
  return {
    DMARCHost: `_dmarc.${d.name}`,
    DMARCTextValue: `v=DMARC1; p=none; rua=mailto:${domainReportAddress(ctx, d.id)}`,
    DMARCVerified: d.dmarc_verified === 1,
    DMARCPolicy: d.dmarc_policy,
    DMARCReportAuthorizationHost: external ? `${d.name}._report._dmarc.${reportDomain}` : '',
    DMARCReportAuthorizationTextValue: external ? 'v=DMARC1' : '',
  };
}

export type DmarcCheck = { kind: 'found'; verified: boolean; policy: string } | { kind: 'none' } | { kind: 'error' };

/** Reads `_dmarc.<domain>` and says whether it names the domain's report address, and its policy. */
export async function checkDmarc(ctx: Pick<AppContext, 'config' | 'secrets' | 'dns'>, d: { id: number; name: string }): Promise<DmarcCheck> {
  const r = await lookupTxt(ctx.dns, `_dmarc.${d.name}`);
  if (r.kind === 'error') return { kind: 'error' };
  const records = r.kind === 'found' ? r.value.filter((t) => /^v\s*=\s*DMARC1\s*(;|$)/i.test(t.slice(0, 16))) : [];
  if (records.length !== 1) return { kind: 'none' };
  const tags = dmarcTags(records[0]);
  const p = (tags.get('p') ?? '').toLowerCase();
  const want = domainReportAddress(ctx, d.id);
  return { kind: 'found', verified: ruaAddresses(tags.get('rua') ?? '').includes(want), policy: (POLICIES as readonly string[]).includes(p) ? p : '' };
}

/** Checks and stores the answer; a temporary DNS failure changes nothing but the time checked. */
export async function refreshDmarc(ctx: AppContext, d: { id: number; name: string }): Promise<void> {
  const r = await checkDmarc(ctx, d);
  ctx.logger.info({ domain: d.name, result: r }, 'DMARC record check');
  const now = ctx.clock.now();
  const set =
    r.kind === 'error'
      ? { dmarc_checked_at: now }
      : r.kind === 'none'
        ? { dmarc_verified: 0, dmarc_policy: '', dmarc_checked_at: now }
        : { dmarc_verified: r.verified ? 1 : 0, dmarc_policy: r.policy, dmarc_checked_at: now };
  await ctx.db.updateTable('domains').set(set).where('id', '=', d.id).execute();
}
