/**
 * Delay before the next try, from the number of attempts already made (1 after the first failure). The
 * schedule is a list of delays; past its end the last delay repeats. Stored attempts drive it, so a restart
 * keeps the schedule.
 */
export function backoffDelay(attempts: number, scheduleMs: readonly number[]): number {
  if (scheduleMs.length === 0) return 0;
  const i = Math.min(Math.max(attempts, 1), scheduleMs.length) - 1;
  return scheduleMs[i];
}

const MIN = 60_000;
/** Generic schedule for internal jobs: 10 s, 1 min, 5 min, 15 min, then hourly. */
export const DEFAULT_SCHEDULE = [10_000, MIN, 5 * MIN, 15 * MIN, 60 * MIN];
