import type { Clock } from '../../src/infra/clock.js';

/**
 * The tests' clock: follows real time shifted by an offset, so ordinary tests see time pass, while a test of
 * a boundary can jump (advance) or stop time (freeze) without sleeping.
 */
export class TestClock implements Clock {
  private offset = 0;
  private frozenAt: number | null = null;
  now(): number {
    return this.frozenAt ?? Date.now() + this.offset;
  }
  advance(ms: number): void {
    if (this.frozenAt !== null) this.frozenAt += ms;
    else this.offset += ms;
  }
  /** Stops the clock at `at` (default: now). */
  freeze(at: number | string | Date = this.now()): void {
    this.frozenAt = typeof at === 'number' ? at : new Date(at).getTime();
  }
  /** Lets the clock run again from where it stands. */
  unfreeze(): void {
    if (this.frozenAt !== null) this.offset = this.frozenAt - Date.now();
    this.frozenAt = null;
  }
}
