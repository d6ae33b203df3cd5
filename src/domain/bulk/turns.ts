// A bulk request is up to a million entries (validate.ts, MAX_BULK_MESSAGES), and acceptance walks them all
// on the event loop: validating each, rendering each Subject (compile.ts), writing each page's JSON
// (store.ts). In one turn that walk held the loop for a third of a second and more; every request of the
// process, /healthz included, waited behind it. The walks count their work here and give the loop away
// every ENTRIES_PER_TURN entries, or sooner once a walk has held it for SLICE_MS (an entry may be large):
// each turn stays well under the 50 ms any request may hold the loop.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Entries between two turns: a few milliseconds of validation on a loaded 2-CPU machine. */
export const ENTRIES_PER_TURN = 2_000;
const SLICE_MS = 10;

export interface Turns {
  /** Counts `work` entries done; true when the walk should `take()` a turn now. */
  due(work?: number): boolean;
  /** Gives the event loop to the other requests, once. */
  take(): Promise<void>;
  /** Turns given so far (tests read it: the work the walks did in slices). */
  readonly taken: number;
}

export function bulkTurns(entriesPerTurn = ENTRIES_PER_TURN, sliceMs = SLICE_MS): Turns {
  let work = 0;
  let since = performance.now();
  let taken = 0;
  return {
    due(n = 1) {
      work += n;
      return work >= entriesPerTurn || performance.now() - since >= sliceMs;
    },
    async take() {
      await nextTurn();
      taken++;
      work = 0;
      since = performance.now();
    },
    get taken() {
      return taken;
    },
  };
}
