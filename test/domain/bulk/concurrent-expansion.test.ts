// Many workers on one database share a bulk request without double-sending (issue 25): workers that hold
// the same 'bulk-expand' job at once (a lease that ran out under a slow commit) compile its pages once. On
// PostgreSQL the two transactions really overlap (a pool of connections): the second one's UPDATE of the page
// rows waits for the first's row locks, then finds the pages done (expand.ts). On SQLite they serialize.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expandPage } from '../../../src/domain/bulk/expand.js';
import { BULK_EXPAND_QUEUE } from '../../../src/domain/bulk/jobs.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

describe('bulk expansion by workers at once', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, 'news@example.com');
  });
  after(async () => {
    await s.close();
  });

  it('compiles each page once when three workers run the same job together', async () => {
    const messages = Array.from({ length: 1_200 }, (_, i) => ({ To: `r${i}@dest.example`, TemplateModel: { name: `R${i}` } }));
    const res = await s.request('POST', '/email/bulk', { body: { From: 'news@example.com', Subject: 'Hi {{name}}', TextBody: 'x', Messages: messages } });
    assert.equal(res.status, 200, res.text);
    const jobs = await s.ctx.db.selectFrom('jobs').selectAll().where('queue', '=', BULK_EXPAND_QUEUE).execute();
    assert.equal(jobs.length, 1, 'three pages in one job');
    const results = await Promise.all([expandPage(s.ctx, jobs[0]), expandPage(s.ctx, jobs[0]), expandPage(s.ctx, jobs[0])]);
    assert.deepEqual(
      results.map((r) => r?.compiled ?? 0).sort((a, b) => b - a),
      [1_200, 0, 0],
    );
    const stored = await s.ctx.db
      .selectFrom('messages')
      .innerJoin('message_recipients', 'message_recipients.message_id', 'messages.id')
      .select(['message_recipients.email'])
      .where('messages.bulk_id', '=', res.body.Id)
      .execute();
    assert.equal(stored.length, 1_200);
    assert.equal(new Set(stored.map((r) => r.email)).size, 1_200, 'each recipient once');
    const row = await s.ctx.db.selectFrom('bulk_requests').select(['compiled', 'pages_done', 'status']).where('id', '=', res.body.Id).executeTakeFirstOrThrow();
    assert.deepEqual([Number(row.compiled), Number(row.pages_done), row.status], [1_200, 3, 'Processing']);
  });
});
