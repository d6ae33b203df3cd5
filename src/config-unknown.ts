// A misspelled MAILROOM_* variable would otherwise be ignored silently, and the default it leaves in place
// can be costly (no MAILROOM_SMTP_RELAY means delivery straight to the recipients' MX hosts on the internet).
// The known names are the settings table's (src/infra/settings-table.ts), the one place a setting is declared.

/**
 * Prefixes of variables read by the test and benchmark scripts, never by the service: a test run that sets
 * one passes it on to the `serve` processes it spawns, which must not stop over it.
 */
export const TOOLING_PREFIXES = ['MAILROOM_TEST_', 'MAILROOM_BENCH_', 'MAILROOM_ROBUST_', 'MAILROOM_CONSOLE_SCREENSHOTS', 'MAILROOM_CHROMIUM'];

/** Levenshtein distance, small strings only. */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

/** The known name closest to `name`. */
export function nearestName(name: string, known: Iterable<string>): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const k of known) {
    const d = distance(name, k);
    if (d < bestD || (d === bestD && best !== null && k < best)) {
      best = k;
      bestD = d;
    }
  }
  return best;
}

/** MAILROOM_* names present in `env` that are not in `known`, sorted. */
export function unknownVariables(env: Record<string, string | undefined>, known: ReadonlySet<string>): string[] {
  return Object.keys(env)
    .filter((k) => k.startsWith('MAILROOM_') && !known.has(k) && !TOOLING_PREFIXES.some((p) => k.startsWith(p)))
    .sort();
}
