// Time is injected everywhere so that retries, retention and purges can be tested at their boundaries
// without sleeping. Times are epoch milliseconds (UTC) throughout the code and the database.

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.now()) {}
  now(): number {
    return this.current;
  }
  set(ms: number | Date | string): void {
    this.current = typeof ms === 'number' ? ms : new Date(ms).getTime();
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
