import { createHash } from 'node:crypto';

// Names of the counters in stats_daily. Fixed names for totals; prefixed names for breakdowns whose keys
// come from the data (bounce types, platforms, e-mail clients, browser families, click locations).
export const Metric = {
  Sent: 'Sent',
  Tracked: 'Tracked',
  WithOpenTracking: 'WithOpenTracking',
  WithLinkTracking: 'WithLinkTracking',
  TotalTrackedLinksSent: 'TotalTrackedLinksSent',
  Bounced: 'Bounced',
  SpamComplaints: 'SpamComplaints',
  Opens: 'Opens',
  UniqueOpens: 'UniqueOpens',
  WithClientRecorded: 'WithClientRecorded',
  WithPlatformRecorded: 'WithPlatformRecorded',
  WithReadTimeRecorded: 'WithReadTimeRecorded',
  Clicks: 'Clicks',
  UniqueClicks: 'UniqueClicks',
  bounceType: (type: string) => `bounce:${type}`,
  openPlatform: (p: string) => `open-platform:${p}`,
  openClient: (c: string) => `open-client:${c}`,
  readTime: (seconds: number) => `read-time:${readTimeBucket(seconds)}`,
  clickBrowser: (b: string) => `click-browser:${b}`,
  clickPlatform: (p: string) => `click-platform:${p}`,
  clickLocation: (l: string) => `click-location:${l}`,
} as const;

/** Read-time buckets of the hosted service's opens/readtimes series: whole seconds up to 20, then "20+". */
export function readTimeBucket(seconds: number): string {
  const s = Math.floor(seconds);
  return s > 20 ? '20+' : `${s}s`;
}

/** The tag as stored in stats_daily's key. Tags may be 1,000 characters, more bytes than a PostgreSQL
 * B-tree entry can hold (about 2.7 kB) in a multi-byte script: long ones become a prefix plus a digest.
 * Writers and readers both go through this function, so a filter on the full tag still matches. */
export function statsTag(tag: string | null | undefined): string {
  const t = tag ?? '';
  // A UTF-16 unit is at most 3 UTF-8 bytes: short tags skip the byte count.
  if (t.length <= 85 || Buffer.byteLength(t) <= 256) return t;
  return `${t.slice(0, 60)}#${createHash('sha256').update(t).digest('hex')}`;
}
