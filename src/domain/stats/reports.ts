// The statistics answers (docs/reference/statistics.md): the outbound overview and the day series under
// /stats/outbound/. Each series names the counters it reads and the keys it shows; totals are always
// present (zero when nothing matched), Days lists the days that have data, oldest first. A day carries
// every fixed key of its series too, zero when nothing happened that day: the hosted service's official
// Python client validates each day of `bounces` (HardBounce, SMTPApiError, SoftBounce, Transient),
// `opens/platforms`, `clicks/platforms` and `clicks/location` as a record with all of them required, and a
// reader of a sparse day (the published examples) reads the same numbers.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { Metric } from './metrics.js';
import { readCounters, type StatsFilter } from './query.js';

interface Series {
  /** Output key -> counter name. */
  fixed?: Record<string, string>;
  /** Counters named `<prefix><key>` show as `<key>`. */
  prefix?: string;
  /** Keys shown in the totals and in every day even when zero. */
  always?: string[];
}

const PLATFORMS = ['Desktop', 'WebMail', 'Mobile', 'Unknown'];

export const SERIES: Record<string, Series> = {
  sends: { fixed: { Sent: Metric.Sent } },
  bounces: { prefix: 'bounce:', always: ['HardBounce', 'SMTPApiError', 'SoftBounce', 'Transient'] },
  spam: { fixed: { SpamComplaint: Metric.SpamComplaints } },
  tracked: { fixed: { Tracked: Metric.Tracked } },
  opens: { fixed: { Opens: Metric.Opens, Unique: Metric.UniqueOpens } },
  'opens/platforms': { prefix: 'open-platform:', always: PLATFORMS },
  'opens/emailclients': { prefix: 'open-client:' },
  'opens/readtimes': { prefix: 'read-time:' },
  clicks: { fixed: { Clicks: Metric.Clicks, Unique: Metric.UniqueClicks } },
  'clicks/browserfamilies': { prefix: 'click-browser:' },
  'clicks/platforms': { prefix: 'click-platform:', always: PLATFORMS },
  'clicks/location': { prefix: 'click-location:', always: ['HTML', 'Text'] },
};

export async function daySeries(db: Kysely<Database>, serverId: number, name: string, f: StatsFilter) {
  const s = SERIES[name]!;
  const fixed = Object.entries(s.fixed ?? {});
  const keyOf = new Map(fixed.map(([key, metric]) => [metric, key]));
  const rows = await readCounters(db, serverId, f, { names: fixed.map(([, m]) => m), prefix: s.prefix });
  const shown = [...fixed.map(([k]) => k), ...(s.always ?? [])];
  const totals: Record<string, number> = {};
  for (const key of shown) totals[key] = 0;
  const days = new Map<string, Record<string, number | string>>();
  for (const r of rows) {
    const key = keyOf.get(r.metric) ?? (s.prefix && r.metric.startsWith(s.prefix) ? r.metric.slice(s.prefix.length) : null);
    if (key === null || key === 'Date' || key === 'Days') continue;
    let day = days.get(r.day);
    if (!day) {
      day = { Date: r.day };
      for (const k of shown) day[k] = 0;
      days.set(r.day, day);
    }
    day[key] = ((day[key] as number | undefined) ?? 0) + r.n;
    totals[key] = (totals[key] ?? 0) + r.n;
  }
  return { Days: [...days.values()], ...totals };
}

const rate = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10000) / 100);

export async function outboundOverview(db: Kysely<Database>, serverId: number, f: StatsFilter) {
  const names = [
    Metric.Sent,
    Metric.Bounced,
    Metric.bounceType('SMTPApiError'),
    Metric.SpamComplaints,
    Metric.Opens,
    Metric.UniqueOpens,
    Metric.Clicks,
    Metric.UniqueClicks,
    Metric.TotalTrackedLinksSent,
    Metric.Tracked,
    Metric.WithLinkTracking,
    Metric.WithOpenTracking,
    Metric.WithClientRecorded,
    Metric.WithPlatformRecorded,
    Metric.WithReadTimeRecorded,
  ];
  const rows = await readCounters(db, serverId, f, { names });
  const sum = (m: string) => rows.filter((r) => r.metric === m).reduce((a, r) => a + r.n, 0);
  const sent = sum(Metric.Sent);
  const bounced = sum(Metric.Bounced);
  const spam = sum(Metric.SpamComplaints);
  return {
    Sent: sent,
    Bounced: bounced,
    SMTPApiErrors: sum(Metric.bounceType('SMTPApiError')),
    BounceRate: rate(bounced, sent),
    SpamComplaints: spam,
    SpamComplaintsRate: rate(spam, sent),
    Opens: sum(Metric.Opens),
    UniqueOpens: sum(Metric.UniqueOpens),
    TotalClicks: sum(Metric.Clicks),
    UniqueLinksClicked: sum(Metric.UniqueClicks),
    TotalTrackedLinksSent: sum(Metric.TotalTrackedLinksSent),
    Tracked: sum(Metric.Tracked),
    WithLinkTracking: sum(Metric.WithLinkTracking),
    WithOpenTracking: sum(Metric.WithOpenTracking),
    WithClientRecorded: sum(Metric.WithClientRecorded),
    WithPlatformRecorded: sum(Metric.WithPlatformRecorded),
    WithReadTimeRecorded: sum(Metric.WithReadTimeRecorded),
  };
}
