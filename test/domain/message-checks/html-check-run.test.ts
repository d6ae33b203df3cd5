// tier: unit
// The HTML check off the event loop (html-check-run.ts): a large body is checked on a worker thread of the
// process's pool with the answer the check gives in place; a small one stays in place; a burst beyond the
// pool's share, or a full pool, is refused 503 (ServiceBusy) with Retry-After at once.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ErrorCode, ServiceBusy } from '../../../src/domain/errors.js';
import { htmlCheck } from '../../../src/domain/message-checks/html-check.js';
import { CHECK_ON_LOOP_BELOW, CHECKS_PER_THREAD, runHtmlCheck, type CheckThreads } from '../../../src/domain/message-checks/html-check-run.js';
import { PoolFull, ThreadPool } from '../../../src/infra/threads/pool.js';

/** About 5 MB of a newsletter: styled tables, images, a style sheet. */
const LARGE = `<html><head><style>.c{display:flex;margin:1em} td>p{color:red}</style></head><body>${'<table width="600"><tr><td class="c" style="padding:2px"><p>text</p><img src="a.svg"></td></tr></table>'.repeat(50_000)}</body></html>`;

/** The real pool, counting the tasks it was given. */
function counted(pool: ThreadPool): CheckThreads & { calls: number } {
  const s: CheckThreads & { calls: number } = {
    threads: pool.threads,
    calls: 0,
    run: (...a) => {
      s.calls++;
      return pool.run(...a);
    },
  };
  return s;
}

// The HTTP edge answers ServiceBusy with 503 and Retry-After (src/http/errors.ts).
const busy = (err: unknown) => err instanceof ServiceBusy && err.errorCode === ErrorCode.Maintenance && err.retryAfter === 1;

describe('the HTML check off the event loop', () => {
  const pool = new ThreadPool({ threads: 1 });
  after(() => pool.close());

  it('checks a 5 MB body on a worker thread, with the answer of the check in place', async () => {
    assert.ok(LARGE.length > 5_000_000);
    const threads = counted(pool);
    const got = await runHtmlCheck(threads, LARGE);
    assert.equal(threads.calls, 1, 'the check ran on the pool');
    assert.deepEqual(got, htmlCheck(LARGE));
    assert.ok(got.Total.Nodes >= 200_000);
  });

  it('checks a small body in place, without the hop', async () => {
    const threads = counted(pool);
    const small = '<p style="display:flex">hi</p>';
    assert.ok(small.length < CHECK_ON_LOOP_BELOW);
    assert.deepEqual(await runHtmlCheck(threads, small), htmlCheck(small));
    assert.equal(threads.calls, 0);
  });

  it('refuses a burst beyond the threads share, and a full pool, with 503 and Retry-After', async () => {
    const threads = counted(pool);
    const running = Array.from({ length: CHECKS_PER_THREAD }, () => runHtmlCheck(threads, LARGE));
    await assert.rejects(runHtmlCheck(threads, LARGE), busy);
    assert.equal(threads.calls, CHECKS_PER_THREAD, 'the refused check never reached the pool');
    await Promise.all(running);
    const full: CheckThreads = { threads: 1, run: () => Promise.reject(new PoolFull('full')) };
    await assert.rejects(runHtmlCheck(full, LARGE), busy);
  });
});
