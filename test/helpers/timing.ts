// Timing bounds (milliseconds of CPU or wall clock) hold only where the measuring test has the CPUs to
// itself: in the perf tier (scripts/test.mjs), which runs last, one file at a time. A test that measures is
// named with TIMED at its end; in its own tier it runs with the others and asserts its work (steps, bytes,
// refusals) only, and the perf tier runs it again, alone, asserting its bounds too.
import assert from 'node:assert/strict';

/** Set by scripts/test.mjs for the perf tier. */
export const TIMING = process.env.MAILROOM_TEST_TIMING === '1';

/** The end of a timed test's name: the perf tier selects tests by it. */
export const TIMED = ' (timed)';

/** Set by scripts/test.mjs for the other tiers' runs when the perf tier runs too. */
const LEFT_TO_THE_PERF_TIER = process.env.MAILROOM_TEST_UNTIMED === '1';

/** Options of a timed test: skipped where the perf tier, which runs it whole, runs later in the same `npm test`. */
export const LEFT_TO_PERF = { skip: !TIMING && LEFT_TO_THE_PERF_TIER ? 'a timed test: run whole in the perf tier' : false } as const;

/** Options for a test that asserts nothing but a timing bound: skipped outside the perf tier. */
export const TIMING_ONLY = { skip: TIMING ? false : 'a timing bound only: asserted in the perf tier' } as const;

/** Asserts `ms < boundMs` in the perf tier; elsewhere the figure is measured and not judged. */
export function assertWithin(ms: number, boundMs: number, what: string): void {
  if (TIMING) assert.ok(ms < boundMs, `${what}: ${ms.toFixed(0)} ms (bound ${boundMs} ms)`);
}
