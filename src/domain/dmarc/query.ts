// What the API and the console show of a domain's DMARC reports: the reports, newest period first, each with
// its records (GET /domains/{id}/dmarc/reports), and a summary over UTC days (GET /domains/{id}/dmarc):
// volume, aligned (DMARC pass: DKIM or SPF passed aligned, RFC 7489 4.2) and failing counts by day, and the
// sources by volume, each marked when it is one of mailroom's own sending addresses (own-sources.ts).
// Reports cover UTC days (their date_range), so the summary's days are UTC days, not Moscow ones.
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';
import { ApiError, ErrorCode } from '../errors.js';
import { DAY_MS, iso } from '../../infra/time.js';
import { ownSources } from './own-sources.js';

/** Records shown per report in the list; RecordCount says how many it has. */
export const RECORDS_PER_REPORT = 1000;
/** Sources listed in a summary (the largest by volume). */
export const MAX_SOURCES = 200;
/** The longest summary range. */
export const MAX_SUMMARY_DAYS = 366;
const DEFAULT_SUMMARY_DAYS = 30;

const parseJson = <T>(s: string, fallback: T): T => {
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
};

type Policy = { domain: string; adkim: string; aspf: string; p: string; sp: string; pct: string; fo: string };

/** `withRecords` false: the reports without their records (the console's list of the latest). */
export async function listDmarcReports(ctx: AppContext, domainId: number, count: number, offset: number, withRecords = true): Promise<{ TotalCount: number; Reports: unknown[] }> {
  const base = ctx.db.selectFrom('dmarc_reports').where('domain_id', '=', domainId);
  const [total, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('end_at', 'desc').orderBy('id', 'desc').limit(count).offset(offset).execute(),
  ]);
  // Each report's first records, one bounded query per report (a report may hold 200000 records).
  const lists = await Promise.all(
    rows.map(async (r) => !withRecords ? [] : ctx.db.selectFrom('dmarc_records').selectAll().where('report_id', '=', r.id).orderBy('id').limit(RECORDS_PER_REPORT).execute()),
  );
  const byReport = new Map(rows.map((r, i) => [Number(r.id), lists[i]]));
  const own = ownSources(ctx);
  return {
    TotalCount: Number(total.n),
    Reports: rows.map((r) => ({
      ID: Number(r.id),
      Status: r.status === 'stored' ? 'Stored' : 'Refused',
      Reason: r.reason,
      Reporter: { OrgName: r.org_name, Email: r.email, ExtraContactInfo: r.extra_contact },
      ReportID: r.report_id,
      Period: { Begin: iso(Number(r.begin_at)), End: iso(Number(r.end_at)) },
      ReceivedAt: iso(Number(r.received_at)),
      FileName: r.file_name,
      PolicyPublished: parseJson<Policy[]>(r.policies, []).map((p) => ({ Domain: p.domain, ADKIM: p.adkim, ASPF: p.aspf, P: p.p, SP: p.sp, Pct: p.pct, FO: p.fo })),
      Errors: parseJson<string[]>(r.errors, []),
      RecordCount: Number(r.record_count),
      MessageCount: Number(r.message_count),
      Records: (byReport.get(Number(r.id)) ?? []).map((x) => ({
        SourceIP: x.source_ip,
        OwnSource: own(x.source_ip),
        Count: Number(x.count),
        Disposition: x.disposition,
        DKIM: x.dkim,
        SPF: x.spf,
        Aligned: x.dkim === 'pass' || x.spf === 'pass',
        Reasons: parseJson<Array<{ type: string; comment: string }>>(x.reasons, []).map((e) => ({ Type: e.type, Comment: e.comment })),
        HeaderFrom: x.header_from,
        EnvelopeFrom: x.envelope_from,
        EnvelopeTo: x.envelope_to,
        DKIMResults: parseJson<Array<{ domain: string; selector: string; result: string }>>(x.dkim_auth, []).map((e) => ({ Domain: e.domain, Selector: e.selector, Result: e.result })),
        SPFResults: parseJson<Array<{ domain: string; scope: string; result: string }>>(x.spf_auth, []).map((e) => ({ Domain: e.domain, Scope: e.scope, Result: e.result })),
      })),
    })),
  };
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A YYYY-MM-DD date as the UTC midnight it starts; refuses anything else. */
export function parseUtcDay(text: string, name: string): number {
  const m = DAY.exec(text);
  const ms = m ? Date.UTC(+m[1], +m[2] - 1, +m[3]) : NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
    throw new ApiError(ErrorCode.DmarcQueryError, `${name} must be a date as YYYY-MM-DD (a UTC day), got "${text.slice(0, 40)}".`);
  }
  return ms;
}

export interface DmarcSummary {
  FromDate: string;
  ToDate: string;
  Total: number;
  Aligned: number;
  Failing: number;
  Reports: number;
  Days: Array<{ Date: string; Total: number; Aligned: number; Failing: number }>;
  Sources: Array<{ SourceIP: string; OwnSource: boolean; Total: number; Aligned: number; Failing: number }>;
}

/** The summary of [fromdate, todate] (UTC days, inclusive; by default the last 30 days up to today). */
export async function dmarcSummary(ctx: AppContext, domainId: number, fromdate?: string, todate?: string): Promise<DmarcSummary> {
  const today = Math.floor(ctx.clock.now() / DAY_MS) * DAY_MS;
  const to = todate ? parseUtcDay(todate, 'todate') : today;
  const from = fromdate ? parseUtcDay(fromdate, 'fromdate') : to - (DEFAULT_SUMMARY_DAYS - 1) * DAY_MS;
  if (from > to) throw new ApiError(ErrorCode.DmarcQueryError, 'fromdate is after todate.');
  if ((to - from) / DAY_MS + 1 > MAX_SUMMARY_DAYS) throw new ApiError(ErrorCode.DmarcQueryError, `The range is longer than ${MAX_SUMMARY_DAYS} days.`);
  const count = sql.ref('count');
  const passing = sql<number>`sum(case when dkim = 'pass' or spf = 'pass' then ${count} else 0 end)`;
  const scope = ctx.db.selectFrom('dmarc_records').where('domain_id', '=', domainId).where('day', '>=', from).where('day', '<=', to);
  const [days, sources, reports] = await Promise.all([
    scope.select(['day', sql<number>`sum(${count})`.as('total'), passing.as('aligned')]).groupBy('day').orderBy('day').execute(),
    scope
      .select(['source_ip', sql<number>`sum(${count})`.as('total'), passing.as('aligned')])
      .groupBy('source_ip')
      .orderBy(sql`sum(${count})`, 'desc')
      .orderBy('source_ip')
      .limit(MAX_SOURCES)
      .execute(),
    ctx.db
      .selectFrom('dmarc_reports')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('domain_id', '=', domainId)
      .where('status', '=', 'stored')
      .where('begin_at', '>=', from)
      .where('begin_at', '<', to + DAY_MS)
      .executeTakeFirstOrThrow(),
  ]);
  const own = ownSources(ctx);
  const Days = days.map((d) => ({ Date: new Date(Number(d.day)).toISOString().slice(0, 10), Total: Number(d.total), Aligned: Number(d.aligned), Failing: Number(d.total) - Number(d.aligned) }));
  const Total = Days.reduce((n, d) => n + d.Total, 0);
  const Aligned = Days.reduce((n, d) => n + d.Aligned, 0);
  return {
    FromDate: new Date(from).toISOString().slice(0, 10),
    ToDate: new Date(to).toISOString().slice(0, 10),
    Total,
    Aligned,
    Failing: Total - Aligned,
    Reports: Number(reports.n),
    Days,
    Sources: sources.map((s) => ({ SourceIP: s.source_ip, OwnSource: own(s.source_ip), Total: Number(s.total), Aligned: Number(s.aligned), Failing: Number(s.total) - Number(s.aligned) })),
  };
}
