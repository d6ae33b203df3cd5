// Keeps the permanent daily statistics counters up to date as events are recorded
// (docs/reference/api-conventions.md, "General rules" 4: statistics outlive the messages they count). Called by
// recordEvents in the transaction that records the events, so a counter moves exactly when its event commits.
// The sending hot path records up to 500 Processed events per call: they are aggregated in memory into one
// upsert row per distinct key.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import type { StatsDailyTable } from '../../infra/db/tables/templates-stats.js';
import type { RecordedEvent } from '../event-types.js';
import { moscowDay } from '../../infra/time.js';
import { Metric, statsTag } from './metrics.js';

type Row = StatsDailyTable;

type Details = Record<string, any>;

const STATS_COLUMNS = ['server_id', 'stream_id', 'tag', 'day', 'metric', 'shard', 'value'] as const;
const UPSERT = 'on conflict ("server_id", "day", "metric", "stream_id", "tag", "shard") do update set "value" = "stats_daily"."value" + excluded."value"';

function name(v: unknown): string | null {
  if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 100);
  return null;
}

/** Tracking flags of Processed events that did not carry them (one query per call). */
async function trackingFlags(trx: Kysely<Database>, events: RecordedEvent[]) {
  const missing = events.filter((e) => e.type === 'Processed' && !e.tracking).map((e) => e.messageId);
  const flags = new Map<string, { opens: boolean; links: boolean }>();
  for (let i = 0; i < missing.length; i += 500) {
    const rows = await trx
      .selectFrom('messages')
      .select(['id', 'track_opens', 'track_links'])
      .where('id', 'in', missing.slice(i, i + 500))
      .execute();
    for (const r of rows) flags.set(r.id, { opens: r.track_opens === 1, links: r.track_links !== 'None' });
  }
  return flags;
}

/** The metrics one event adds to (each by 1 unless a count is given). */
function metricsOf(e: RecordedEvent, flags: Map<string, { opens: boolean; links: boolean }>): [string, number][] {
  const d = (e.details ?? {}) as Details;
  switch (e.type) {
    case 'Processed': {
      const t = e.tracking ?? flags.get(e.messageId) ?? { opens: false, links: false };
      const out: [string, number][] = [[Metric.Sent, 1]];
      if (t.opens || t.links) out.push([Metric.Tracked, 1]);
      if (t.opens) out.push([Metric.WithOpenTracking, 1]);
      if (t.links) out.push([Metric.WithLinkTracking, 1]);
      if (e.tracking?.trackedLinks) out.push([Metric.TotalTrackedLinksSent, e.tracking.trackedLinks]);
      return out;
    }
    case 'Delivered':
      // Filled by delivery: the click redirects in the copy this recipient was sent.
      return e.tracking?.trackedLinks ? [[Metric.TotalTrackedLinksSent, e.tracking.trackedLinks]] : [];
    case 'Bounced': {
      const type = name(d.Type) ?? 'Unknown';
      return [
        [Metric.Bounced, 1],
        [Metric.bounceType(type), 1],
      ];
    }
    case 'SpamComplaint':
      return [[Metric.SpamComplaints, 1]];
    case 'Opened': {
      const out: [string, number][] = [[Metric.Opens, 1]];
      if (d.FirstOpen === true) {
        const client = name(d.Client?.Name);
        const platform = name(d.Platform) ?? 'Unknown';
        out.push([Metric.UniqueOpens, 1], [Metric.openPlatform(platform), 1]);
        if (client) out.push([Metric.WithClientRecorded, 1]);
        out.push([Metric.openClient(client ?? 'Unknown'), 1]);
        if (platform !== 'Unknown') out.push([Metric.WithPlatformRecorded, 1]);
        if (typeof d.ReadSeconds === 'number' && d.ReadSeconds > 0) {
          out.push([Metric.WithReadTimeRecorded, 1], [Metric.readTime(d.ReadSeconds), 1]);
        }
      }
      return out;
    }
    case 'LinkClicked': {
      const out: [string, number][] = [[Metric.Clicks, 1]];
      if (d.FirstClick === true) out.push([Metric.UniqueClicks, 1]);
      out.push(
        [Metric.clickBrowser(name(d.Client?.Family) ?? name(d.Client?.Name) ?? 'Unknown'), 1],
        [Metric.clickPlatform(name(d.Platform) ?? 'Unknown'), 1],
        [Metric.clickLocation(d.ClickLocation === 'Text' ? 'Text' : 'HTML'), 1],
      );
      return out;
    }
    default:
      return [];
  }
}

export async function countStats(trx: Kysely<Database>, ctx: Pick<AppContext, 'database'>, events: RecordedEvent[]): Promise<void> {
  if (events.length === 0) return;
  const flags = await trackingFlags(trx, events);
  // Counter rows per key are spread over shards where transactions run side by side (db/row-locks.ts), so
  // concurrent sending transactions rarely wait on one another's row lock for the same day's Sent counter.
  const shards = ctx.database.sql.counterShards;
  const shard = shards > 1 ? Math.floor(Math.random() * shards) : 0;
  const rows = new Map<string, Row>();
  // A batch's events share one time: the Moscow day is computed once per distinct time, not per event.
  let lastAt = NaN;
  let day = '';
  for (const e of events) {
    if (e.occurredAt !== lastAt) {
      lastAt = e.occurredAt;
      day = moscowDay(lastAt);
    }
    const tag = statsTag(e.tag);
    for (const [metric, n] of metricsOf(e, flags)) {
      // \u0000 cannot occur in any part (tags and stream ids with NUL are refused at the API).
      const key = `${e.serverId}\u0000${day}\u0000${metric}\u0000${e.streamId}\u0000${tag}`;
      const row = rows.get(key);
      if (row) row.value += n;
      else rows.set(key, { server_id: e.serverId, stream_id: e.streamId, tag, day, metric, shard, value: n });
    }
  }
  if (rows.size === 0) return;
  // A fixed order takes the row locks in the same order in every transaction (no deadlocks on PostgreSQL).
  const sorted = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  // Raw multi-row upsert (src/infra/db/raw-insert.ts): valid on SQLite (3.24+) and PostgreSQL alike.
  const values = sorted.map((r) => [r.server_id, r.stream_id, r.tag, r.day, r.metric, r.shard, r.value]);
  await ctx.database.sql.insertRowsWith(trx, 'stats_daily', STATS_COLUMNS, values, UPSERT, 500);
}
