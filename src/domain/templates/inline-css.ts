// InlineCss (docs/reference/templates.md, "Sending with a template"): many mail clients ignore <style> blocks,
// so the rules are moved into style="" attributes. juice is the maintained library for exactly this (CSS
// specificity, !important, media queries kept in a <style> block since they cannot be inlined).
//
// juice's work grows with rules times elements (each rule's selector is matched against the whole document)
// on top of parsing and writing the document back (about 2 µs an element): 1,000 rules over 3,000 elements
// (70 KB of HTML) took 0.76 s of CPU, so a template the size of a render's output cap would hold the event loop
// for hours. The work is estimated first, in one pass, and refused past INLINE_CSS_BUDGET.
//
// Within the budget an inlining still takes up to about 250 ms of CPU, and juice cannot be interrupted, so it
// runs on a worker thread (the process's pool, infra/threads; inline-css-task.ts) and the event loop keeps
// answering other requests meanwhile: a few such renders at once held /healthz for seconds. An inlining
// estimated under INLINE_ON_LOOP_BELOW stays on the caller's thread, where it costs less than the hop.
import { setTimeout as sleep } from 'node:timers/promises';
import { PoolFull, WorkerLost, taskModule, type ThreadPool } from '../../infra/threads/pool.js';
import { ServiceBusy } from '../errors.js';
import { inlineStyles } from './inline-css-task.js';
import { RenderBudgetError } from './render.js';

/** Cost units of one inlining: elements x (selectors + ELEMENT_COST); a unit is about 0.25 µs of juice's CPU,
 * so the largest inlining allowed takes about 250 ms (bench/README.md). A
 * large newsletter (3,000 elements, 250 selectors) is 774,000. */
export const INLINE_CSS_BUDGET = 1_000_000;
/** Parsing and writing back one element costs about as much as matching eight selectors against it. */
const ELEMENT_COST = 8;

const isLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** Selectors juice would match: the top-level rules of every <style> block, each comma-separated selector once. */
function countSelectors(html: string): number {
  let n = 0;
  const open = /<style[\s>]/gi;
  const close = /<\/style/gi;
  for (let m = open.exec(html); m; m = open.exec(html)) {
    close.lastIndex = open.lastIndex;
    const end = close.exec(html)?.index ?? html.length;
    let depth = 0;
    for (let i = open.lastIndex; i < end; i++) {
      const c = html[i];
      if (c === '{') {
        if (depth === 0) n++;
        depth++;
      } else if (c === '}') depth = Math.max(0, depth - 1);
      else if (c === ',' && depth === 0) n++;
    }
    open.lastIndex = end;
  }
  return n;
}

/** Start tags: '<' before a letter. */
function countElements(html: string): number {
  let n = 0;
  for (let i = html.indexOf('<'); i >= 0; i = html.indexOf('<', i + 1)) if (isLetter(html.charCodeAt(i + 1))) n++;
  return n;
}

/** Cost units of `html`'s inlining, or null when it has no <style> to inline; RenderBudgetError past `budget`. */
export function inliningCost(html: string, budget = INLINE_CSS_BUDGET): number | null {
  if (!/<style[\s>]/i.test(html)) return null;
  const selectors = countSelectors(html);
  const elements = countElements(html);
  const cost = elements * (selectors + ELEMENT_COST);
  if (cost > budget) {
    throw new RenderBudgetError(
      'InlineCss',
      `Inlining the CSS would match ${selectors} style rules against ${elements} elements, more work than one message may take (${budget} units of elements x (rules + ${ELEMENT_COST})): inline the styles in the template, use fewer rules, or send with InlineCss false`,
    );
  }
  return cost;
}

/** Inlines on this thread (after the budget check): for a worker, a test, or a cost under INLINE_ON_LOOP_BELOW. */
export function inlineCss(html: string, budget = INLINE_CSS_BUDGET): string {
  // Nothing to inline: leave the HTML byte for byte as written (and skip the parse).
  return inliningCost(html, budget) === null ? html : inlineStyles(html);
}

/** What the inlining needs of the process's thread pool (ctx.threads). */
export type CssThreads = Pick<ThreadPool, 'run' | 'threads'>;

export interface InlineOptions {
  budget?: number;
  /** When every worker is busy and the pool's queue is full, or INLININGS_PER_THREAD per worker are under
   * way: false (a request) refuses at once with 503 and Retry-After; true (a background job, bulk expansion)
   * waits for room. */
  waitForRoom?: boolean;
}

const TASK = taskModule(import.meta.url, 'inline-css-task');
/** Under this estimate (about 1 ms of juice, whose floor is about 0.7 ms for any document) the inlining runs
 * on the caller's thread: the hop to a worker takes 0.3-0.7 ms of the event loop itself (a message each way and
 * a copy of the HTML) and, on a loaded host, as much wall time as inlining a small
 * document in place (4-7 ms), so a worker would save the loop little and cost the request a thread's wake-up. */
export const INLINE_ON_LOOP_BELOW = 5_000;
/** Inlinings under way or waiting on the pool, per worker: a burst beyond it is refused (or waits, in a job)
 * rather than filling the pool's queue, which the SMTP listeners share, with rendered documents. */
export const INLININGS_PER_THREAD = 4;
export const RETRY_AFTER_SECONDS = 1;
const ROOM_POLL_MS = 25;
/** Inlinings sent to each pool and not yet answered (a process has one pool, ctx.threads; tests run several). */
const underWay = new WeakMap<CssThreads, number>();

/** Inlines off the event loop (on a worker thread) when the work is worth the hop; the same result as inlineCss(). */
export async function inlineCssOffLoop(threads: CssThreads, html: string, o: InlineOptions = {}): Promise<string> {
  const cost = inliningCost(html, o.budget);
  if (cost === null) return html;
  if (cost < INLINE_ON_LOOP_BELOW) return inlineStyles(html);
  for (;;) {
    const busy = underWay.get(threads) ?? 0;
    if (busy < threads.threads * INLININGS_PER_THREAD) {
      underWay.set(threads, busy + 1);
      try {
        return await threads.run<string>(TASK, 'inlineStyles', html, [], { alone: true });
      } catch (err) {
        if (err instanceof WorkerLost) {
          // Alone on its worker, the inlining itself passed the worker's heap or time limit (pool.ts).
          throw new RenderBudgetError('InlineCss', `Inlining the CSS took more memory or time than one message may take (${err.message}): send with InlineCss false`);
        }
        if (!(err instanceof PoolFull)) throw err;
      } finally {
        underWay.set(threads, (underWay.get(threads) ?? 1) - 1);
      }
    }
    if (!o.waitForRoom) {
      throw new ServiceBusy('Too many templates are having their CSS inlined at once; send the request again shortly.', RETRY_AFTER_SECONDS);
    }
    await sleep(ROOM_POLL_MS);
  }
}
