// tier: unit
// CSS inlining off the event loop (inline-css.ts, inlineCssOffLoop): a worker thread of the process's pool
// gives the same HTML as inlining in place; a small inlining stays in place; when the pool is full a request
// is refused 503 with Retry-After and a background job waits for room; a worker lost to its limits is the
// template's 1122, and the budget is checked before any hop (issue 27).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ServiceBusy } from '../../../src/domain/errors.js';
import { INLINE_ON_LOOP_BELOW, INLININGS_PER_THREAD, inlineCss, inlineCssOffLoop, inliningCost, type CssThreads } from '../../../src/domain/templates/inline-css.js';
import { RenderBudgetError } from '../../../src/domain/templates/render.js';
import { PoolFull, ThreadPool, WorkerLost } from '../../../src/infra/threads/pool.js';

const page = (rules: number, elements: number) =>
  `<html><head><style>${Array.from({ length: rules }, (_, i) => `.c${i}, .d${i}{color:red}`).join('')} @media (max-width: 600px) { p { color: blue } }</style></head><body>${'<p class="c1">a</p>'.repeat(elements)}</body></html>`;
const LARGE = page(50, 1000);

/** A pool stand-in: answers each run() with `answer(call number)`, and counts the calls. */
function stub(answer: (n: number) => Promise<string>): CssThreads & { calls: number } {
  const s = {
    threads: 1,
    calls: 0,
    run: <T>() => answer(++s.calls) as Promise<T>,
  };
  return s;
}

describe('CSS inlining off the event loop', () => {
  const pool = new ThreadPool({ threads: 2 });
  after(() => pool.close());

  it('gives on a worker thread the HTML that inlining in place gives, and leaves HTML without <style> as written', async () => {
    assert.ok(inliningCost(LARGE)! >= INLINE_ON_LOOP_BELOW);
    const outs = await Promise.all([0, 1, 2].map(() => inlineCssOffLoop(pool, LARGE)));
    for (const out of outs) assert.equal(out, inlineCss(LARGE));
    assert.match(outs[0]!, /<p class="c1" style="color: ?red;?">a<\/p>/);
    assert.match(outs[0]!, /@media/);
    assert.equal(await inlineCssOffLoop(pool, '<p>no styles &amp; untouched</p>'), '<p>no styles &amp; untouched</p>');
  });

  it('inlines a small document in place, without the hop', async () => {
    const small = page(2, 10);
    assert.ok(inliningCost(small)! < INLINE_ON_LOOP_BELOW);
    const threads = stub(() => Promise.reject(new Error('no hop expected')));
    assert.equal(await inlineCssOffLoop(threads, small), inlineCss(small));
    assert.equal(threads.calls, 0);
  });

  it('refuses past the budget before any hop, 1122 as before', async () => {
    const threads = stub(() => Promise.reject(new Error('no hop expected')));
    await assert.rejects(inlineCssOffLoop(threads, page(500, 2997)), (err: unknown) => err instanceof RenderBudgetError && /1001 style rules against 3001 elements/.test((err as Error).message));
    assert.equal(threads.calls, 0);
  });

  it('a full pool: a request is refused 503 with Retry-After at once; a job waits for room', async () => {
    const full = stub(() => Promise.reject(new PoolFull('full')));
    await assert.rejects(inlineCssOffLoop(full, LARGE), (err: unknown) => err instanceof ServiceBusy && err.errorCode === 100 && err.retryAfter === 1);
    const busyTwice = stub((n) => (n <= 2 ? Promise.reject(new PoolFull('full')) : Promise.resolve('inlined')));
    assert.equal(await inlineCssOffLoop(busyTwice, LARGE, { waitForRoom: true }), 'inlined');
    assert.equal(busyTwice.calls, 3);
  });

  it(`at most ${INLININGS_PER_THREAD} inlinings per worker are under way; the next request is refused, the next job waits`, async () => {
    const release: Array<() => void> = [];
    const held = stub(() => new Promise<string>((res) => release.push(() => res('inlined'))));
    const under = Array.from({ length: INLININGS_PER_THREAD }, () => inlineCssOffLoop(held, LARGE));
    await assert.rejects(inlineCssOffLoop(held, LARGE), (err: unknown) => err instanceof ServiceBusy);
    const job = inlineCssOffLoop(held, LARGE, { waitForRoom: true });
    assert.equal(held.calls, INLININGS_PER_THREAD);
    release.shift()!();
    assert.equal(await under[0], 'inlined');
    // The job takes the freed place at its next look (every 25 ms).
    const deadline = Date.now() + 5000;
    while (held.calls === INLININGS_PER_THREAD && Date.now() < deadline) await new Promise((res) => setTimeout(res, 5));
    assert.equal(held.calls, INLININGS_PER_THREAD + 1);
    for (const r of release.splice(0)) r();
    assert.deepEqual(await Promise.all([...under, job]), Array(INLININGS_PER_THREAD + 1).fill('inlined'));
  });

  it("a worker lost to its heap or time limit is the template's refusal (1122), not a 500", async () => {
    const lost = stub(() => Promise.reject(new WorkerLost('the task ran longer than 120000 ms')));
    await assert.rejects(inlineCssOffLoop(lost, LARGE), (err: unknown) => err instanceof RenderBudgetError && /InlineCss false/.test((err as Error).message));
  });
});
