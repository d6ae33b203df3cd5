// Rendering and parsing of timestamps. Stored values are epoch milliseconds (UTC); the API renders ISO 8601
// with an explicit offset. Date filters and statistics use Moscow time (GMT+3, no DST since 2014) as the
// API requires (docs/reference/api-conventions.md, "General rules" 4 and 5).

export const MOSCOW_OFFSET_MS = 3 * 60 * 60 * 1000;
export const DAY_MS = 24 * 60 * 60 * 1000;

/** ISO 8601 in UTC with an explicit offset: 2026-11-21T05:19:25.123Z is rendered with "+00:00". */
export function iso(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

/** Calendar day (YYYY-MM-DD) of an instant in Moscow time. */
export function moscowDay(ms: number): string {
  return new Date(ms + MOSCOW_OFFSET_MS).toISOString().slice(0, 10);
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses a date filter. Date-only and date-time without offset are read as Moscow wall-clock time; an explicit
 * offset is honoured. `end` makes a date-only value inclusive (the last millisecond of that Moscow day).
 * Returns null when the text is not a date.
 */
export function parseFilterDate(text: string, end = false): number | null {
  const d = DATE_ONLY.exec(text);
  if (d) {
    const start = Date.UTC(+d[1], +d[2] - 1, +d[3]) - MOSCOW_OFFSET_MS;
    if (!validYmd(+d[1], +d[2], +d[3])) return null;
    return end ? start + DAY_MS - 1 : start;
  }
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  if (!validYmd(+m[1], +m[2], +m[3]) || +m[4] > 23 || +m[5] > 59 || (m[6] !== undefined && +m[6] > 59)) return null;
  const ms = m[7] ? Number(m[7].padEnd(3, '0')) : 0;
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], m[6] ? +m[6] : 0, ms);
  let offset = MOSCOW_OFFSET_MS;
  if (m[8] === 'Z') offset = 0;
  else if (m[8]) {
    const sign = m[8][0] === '-' ? -1 : 1;
    const digits = m[8].slice(1).replace(':', '');
    offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  const at = wall - offset;
  // An inclusive upper bound given to the second covers that whole second.
  return end && !m[7] ? at + (m[6] ? 999 : 59_999) : at;
}

function validYmd(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}
