// Where DMARC aggregate reports are mailed (RFC 7489 6.2 "rua"). MAILROOM_DMARC_REPORT_ADDRESS (default
// dmarc@<inbound domain>) is the base; each domain's record names its own signed sub-address,
// <local>+<domain id>.<tag>@<report domain>, so that a report arriving there belongs to exactly that
// domain of that account: several accounts may hold a domain of the same name (names are unique per
// account), and the tag cannot be forged (12 characters of an HMAC, as VERP addresses, infra/mime/verp.ts).
// A report sent to the bare base address has no account; store.ts decides what it may attach to.
import type { AppContext } from '../app-context.js';

export interface DmarcTarget {
  /** The envelope recipient, lowercased. */
  address: string;
  /** The domain the sub-address names; null for the bare report address. */
  domainId: number | null;
}

const PURPOSE = 'dmarc-rua';

const tag = (ctx: Pick<AppContext, 'secrets'>, domainId: number) => ctx.secrets.sign(PURPOSE, String(domainId)).split('.')[1].slice(0, 12).toLowerCase();

/** The bare report address. */
export function baseReportAddress(ctx: Pick<AppContext, 'config'>): string {
  return `${ctx.config.dmarc.report.local}@${ctx.config.dmarc.report.domain}`;
}

/** The rua address of one domain. */
export function domainReportAddress(ctx: Pick<AppContext, 'config' | 'secrets'>, domainId: number): string {
  return `${ctx.config.dmarc.report.local}+${domainId}.${tag(ctx, domainId)}@${ctx.config.dmarc.report.domain}`;
}

/** The report address `address` is, or null when it is none (or names a domain with a wrong tag). */
export function matchReportAddress(ctx: Pick<AppContext, 'config' | 'secrets'>, address: string): DmarcTarget | null {
  const a = address.trim().toLowerCase();
  const at = a.lastIndexOf('@');
  if (at <= 0 || a.slice(at + 1).replace(/\.$/, '') !== ctx.config.dmarc.report.domain) return null;
  const local = a.slice(0, at);
  const base = ctx.config.dmarc.report.local;
  if (local === base) return { address: a, domainId: null };
  if (!local.startsWith(`${base}+`)) return null;
  const m = /^(\d{1,12})\.([0-9a-z_-]{12})$/.exec(local.slice(base.length + 1));
  if (!m || tag(ctx, Number(m[1])) !== m[2]) return null;
  return { address: a, domainId: Number(m[1]) };
}
