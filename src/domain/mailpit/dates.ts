// Dates of Mailpit's before:/after: terms. Mailpit reads them with dateparse in the request's `tz` zone (the
// server's own when absent); the forms test suites write are read here: 2026-11-26, 2026/11/26, and
// 2026-11-26T10:00[:00][Z|+01:00]. A date without a time is that zone's midnight; without a zone, UTC.
// Anything else short enough goes to Date.parse; what that cannot read is ignored, as Mailpit ignores it.

const DATE = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** The zone's offset from UTC (ms) at instant `utc`; null for a zone the runtime does not know. */
function zoneOffset(tz: string, utc: number): number | null {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(utc);
  } catch {
    return null;
  }
  const n = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour') % 24, n('minute'), n('second'));
  return wall - Math.floor(utc / 1000) * 1000;
}

/** Wall-clock time in zone `tz` (UTC when absent or unknown) as epoch ms. */
export function wallTimeIn(tz: string | undefined, y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number {
  const guess = Date.UTC(y, mo - 1, d, h, mi, s);
  if (!tz) return guess;
  const first = zoneOffset(tz, guess);
  if (first === null) return guess;
  // Again at the corrected instant: across a DST change the offset at the guess may be the other one.
  const second = zoneOffset(tz, guess - first) ?? first;
  return guess - second;
}

export function zonedMidnightOrInstant(text: string, tz?: string): number | null {
  if (text === '' || text.length > 64) return null;
  const m = DATE.exec(text);
  if (m) {
    const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => (m[i] === undefined ? 0 : Number(m[i])));
    if (mo! < 1 || mo! > 12 || d! < 1 || d! > 31 || h! > 23 || mi! > 59 || s! > 59) return null;
    const zone = m[7];
    if (zone) {
      const utc = Date.UTC(y!, mo! - 1, d!, h, mi, s);
      if (zone === 'Z') return utc;
      const sign = zone[0] === '-' ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      return utc - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
    }
    return wallTimeIn(tz, y!, mo!, d!, h, mi, s);
  }
  const t = Date.parse(text);
  return Number.isFinite(t) ? t : null;
}
