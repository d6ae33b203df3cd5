// A bulk request's acceptance gives the event loop away as it goes: its entries are validated, their Subjects
// rendered and their pages written in turns (src/domain/bulk/turns.ts), and it is stored in several short
// transactions (store.ts) that are all or nothing together: a request that fails on the way, or that a dead
// process left half written, is seen by nobody and removed. Held on the loop, the same request let no other
// callback run from its start to its answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { submitBulk } from '../../src/domain/bulk/accept.js';
import { bulkCounts } from '../../src/domain/bulk/counts.js';
import { BULK_EXPAND_QUEUE, PAGE_SIZE, PAGES_PER_JOB } from '../../src/domain/bulk/jobs.js';
import { getBulkRequest } from '../../src/domain/bulk/progress.js';
import { ABANDONED_MS, BATCH_CHARS, removeAbandoned, STORING } from '../../src/domain/bulk/store.js';
import { ENTRIES_PER_TURN, bulkTurns, type Turns } from '../../src/domain/bulk/turns.js';
import { addConfirmedSender } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';

const N = 20_000;
const body = (n: number) => ({
  From: 'news@example.com',
  Subject: 'News for {{name}}',
  TextBody: 'Hello {{name}}',
  Messages: Array.from({ length: n }, (_, i) => ({ To: `reader${i}@d${i % 100}.example`, TemplateModel: { name: `Reader ${i}`, note: 'a garden note '.repeat(4) } })),
});

/** Callbacks of the event loop run while `work` runs: 0 when it holds the loop from its start to its end. */
async function ticksDuring<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number }> {
  let ticks = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    ticks++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), ticks };
  } finally {
    running = false;
  }
}

describe('a bulk request on the event loop', () => {
  let s: TestService;
  let auth: { accountId: number; serverId: number; testMode: boolean };
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, 'news@example.com');
    auth = { accountId: s.accountId, serverId: s.serverId, testMode: false };
  });
  after(() => s.close());

  const rowsOf = async (id: string) => ({
    requests: await s.ctx.db.selectFrom('bulk_requests').select('status').where('id', '=', id).execute(),
    pages: await s.ctx.db.selectFrom('bulk_pages').select('entries').where('bulk_id', '=', id).orderBy('page').execute(),
  });
  const bulkTransactions = async () => {
    const m = await s.ctx.metrics.groupCommitSize.get();
    return m.values.find((v) => v.metricName === 'mailroom_group_commit_size_count' && v.labels.committer === 'bulk requests')?.value ?? 0;
  };

  it(`validates and stores ${N.toLocaleString('en-US')} entries in turns of the event loop and several transactions`, async () => {
    const turns = bulkTurns();
    const transactions = await bulkTransactions();
    const { result, ticks } = await ticksDuring(() => submitBulk(s.ctx, auth, body(N), turns));
    // Three walks over the entries (validation, Subjects, pages' JSON), each giving a turn at least every
    // ENTRIES_PER_TURN entries.
    assert.ok(turns.taken >= (3 * N) / ENTRIES_PER_TURN, `${turns.taken} turns`);
    assert.ok(ticks >= turns.taken, `${ticks} other callbacks ran during ${turns.taken} turns`);

    const { requests, pages } = await rowsOf(result.Id);
    assert.deepEqual(requests, [{ status: 'Accepted' }]);
    assert.equal(pages.length, N / PAGE_SIZE);
    assert.equal(pages.reduce((n, p) => n + (JSON.parse(p.entries) as unknown[]).length, 0), N);
    const chars = pages.reduce((n, p) => n + p.entries.length, 0);
    assert.ok(chars > 2 * BATCH_CHARS, `${chars} characters of pages`);
    // The row, the pages BATCH_CHARS at a time, the last one that accepts it.
    assert.ok((await bulkTransactions()) - transactions >= 2 + Math.floor(chars / BATCH_CHARS), 'one transaction per batch of pages');
    const jobs = await s.ctx.db.selectFrom('jobs').select('payload').where('queue', '=', BULK_EXPAND_QUEUE).where('payload', 'like', `%${result.Id}%`).execute();
    assert.equal(jobs.length, N / PAGE_SIZE / PAGES_PER_JOB);
    assert.equal((await s.request('GET', `/email/bulk/${result.Id}`)).body.TotalMessages, N);
  });

  it('leaves nothing behind when storing fails after pages were committed', async () => {
    const before = await s.ctx.db.selectFrom('bulk_requests').select('id').execute();
    // Turns as bulkTurns gives them, failing at the third page's JSON: after the row and the first batch of pages.
    const inner = bulkTurns(1, 0);
    let pageTurns = 0;
    const failing: Turns = {
      due: (work = 1) => inner.due(work),
      async take() {
        await inner.take();
        if (inner.taken > 2 * N && ++pageTurns === Math.ceil(BATCH_CHARS / 40_000) + 2) throw new Error('the disk went away');
      },
      get taken() {
        return inner.taken;
      },
    };
    const transactions = await bulkTransactions();
    await assert.rejects(submitBulk(s.ctx, auth, body(N), failing), /the disk went away/);
    assert.ok((await bulkTransactions()) - transactions >= 2, 'the row and a batch of pages were committed first');
    assert.deepEqual(await s.ctx.db.selectFrom('bulk_requests').select('id').execute(), before);
    const orphans = await s.ctx.db.selectFrom('bulk_pages').select('bulk_id').where('bulk_id', 'not in', before.length ? before.map((b) => b.id) : ['-']).execute();
    assert.deepEqual(orphans, []);
  });

  it('hides a request a dead process left half written, and removes it once abandoned', async () => {
    const id = 'b0000000-dead-4000-8000-000000000001';
    const counts = await bulkCounts(s.ctx.db);
    const now = s.clock.now();
    await s.ctx.db
      .insertInto('bulk_requests')
      .values({ id, server_id: s.serverId, stream_id: 'broadcast', status: STORING, subject: 'x', content: '{}', total_messages: 1000, pages: 2, submitted_at: now })
      .execute();
    await s.ctx.db.insertInto('bulk_pages').values({ bulk_id: id, page: 0, entries: '[]' }).execute();

    const unknown = await s.request('GET', '/email/bulk/b0000000-dead-4000-8000-000000000002');
    const half = await s.request('GET', `/email/bulk/${id}`);
    assert.deepEqual([half.status, half.body], [unknown.status, { ...unknown.body, Message: unknown.body.Message.replace('0002', '0001') }]);
    assert.equal(await getBulkRequest(s.ctx.db, s.serverId, id), null);
    assert.deepEqual(await bulkCounts(s.ctx.db), counts);

    assert.equal(await removeAbandoned(s.ctx, now + ABANDONED_MS - 1), 0, 'a request being written now is left alone');
    assert.equal(await removeAbandoned(s.ctx, now + ABANDONED_MS + 1), 1);
    assert.deepEqual(await rowsOf(id), { requests: [], pages: [] });
  });
});
