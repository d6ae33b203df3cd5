// TLS-RPT-style counts per destination domain (RFC 8460 4.3: successful sessions, failures by result type)
// for `mailroom status`, read back from the TLS record each delivery attempt leaves in its event
// (Details.TLS, src/domain/delivery/mta-sts/tls-record.ts): no counter table to keep, and the figures are
// exactly what the message timelines show. Bounded: the last 24 hours within the newest SCAN_EVENTS events.
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';

const DAY_MS = 24 * 3_600_000;
/** Events looked at, newest first (a range of the primary key: the read stays cheap on a large table). */
const SCAN_EVENTS = 200_000;

export interface TlsDestination {
  domain: string;
  /** The MTA-STS mode applied in the newest attempt. */
  mode: string;
  success: number;
  /** Failures by RFC 8460 result type; under mode testing or none they did not stop delivery. */
  failures: Record<string, number>;
  /** Attempts in plaintext (counted among failures as starttls-not-supported as well). */
  plaintext: number;
}

export async function tlsReport(ctx: AppContext, now: number): Promise<TlsDestination[]> {
  const rows = await ctx.db
    .selectFrom('message_events')
    .select(['recipient', 'details'])
    .where('id', '>', sql<number>`(select coalesce(max(id), 0) - ${SCAN_EVENTS} from message_events)`)
    .where('type', 'in', ['Delivered', 'Transient'])
    .where('occurred_at', '>=', now - DAY_MS)
    .where('details', 'like', '%"Result":%')
    .orderBy('id', 'desc')
    .execute();
  const byDomain = new Map<string, TlsDestination>();
  for (const r of rows) {
    let tls: { Result?: string; Used?: boolean; MTASTSMode?: string } | undefined;
    try {
      tls = (JSON.parse(r.details) as { TLS?: typeof tls }).TLS;
    } catch {
      continue;
    }
    if (!tls?.Result) continue;
    const domain = r.recipient.slice(r.recipient.lastIndexOf('@') + 1).toLowerCase();
    let d = byDomain.get(domain);
    if (!d) byDomain.set(domain, (d = { domain, mode: tls.MTASTSMode ?? 'none', success: 0, failures: {}, plaintext: 0 }));
    if (tls.Result === 'success') d.success++;
    else d.failures[tls.Result] = (d.failures[tls.Result] ?? 0) + 1;
    if (tls.Used === false) d.plaintext++;
  }
  const failed = (d: TlsDestination) => Object.values(d.failures).reduce((a, b) => a + b, 0);
  // Domains with failures first, then by volume.
  return [...byDomain.values()].sort((a, b) => failed(b) - failed(a) || b.success - a.success || a.domain.localeCompare(b.domain)).slice(0, 50);
}

export function formatTlsReport(list: TlsDestination[]): string[] {
  const out = ['Outbound TLS, last 24 h (per destination; MTA-STS mode; TLS-RPT result types):'];
  if (list.length === 0) out.push('  (no direct MX deliveries)');
  for (const d of list) {
    const f = Object.entries(d.failures).map(([k, n]) => `${k} ${n}`);
    out.push(`  ${d.domain} [${d.mode}]: success ${d.success}${f.length ? `; failures: ${f.join(', ')}` : ''}`);
  }
  return out;
}
