// Renders run on the event loop, so a batch that renders 500 messages one after another would hold it for 500
// renders. Each render is bounded (render.ts, RenderBudget); between them, a loop calls the function this makes,
// which gives other requests (and /healthz) a turn once the loop has held the event loop for `sliceMs`.
import { setImmediate as nextTurn } from 'node:timers/promises';

export function turnTaker(sliceMs = 10): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await nextTurn();
    since = performance.now();
  };
}
