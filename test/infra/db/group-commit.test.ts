// The group-commit factory (src/infra/db/group-commit.ts): the caller gives only what a group writes; a
// conflict abort runs the group's transaction again with nothing of the first attempt kept, and each group's
// weight is counted under the writer's name.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createGroupCommit } from '../../../src/infra/db/group-commit.js';
import { startService, type TestService } from '../../helpers/service.js';

const conflict = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

describe('group commit factory', () => {
  let s: TestService;
  before(async () => {
    s = await startService();
    await sql`create table group_commit_probe (name text not null)`.execute(s.ctx.db);
  });
  after(() => s.close());

  it('runs a group again after a conflict abort, keeping nothing of the aborted attempt', async () => {
    let attempts = 0;
    const g = createGroupCommit<string, number>(s.ctx, {
      name: 'probe-conflict',
      commit: async (trx, names) => {
        attempts++;
        for (const name of names) await sql`insert into group_commit_probe (name) values (${name})`.execute(trx);
        if (attempts === 1) throw conflict();
        return names.map((n) => n.length);
      },
    });
    assert.deepEqual(await Promise.all([g.submit('a'), g.submit('bb')]), [1, 2]);
    assert.equal(attempts, 2);
    const rows = await sql<{ name: string }>`select name from group_commit_probe order by name`.execute(s.ctx.db);
    assert.deepEqual(rows.rows.map((r) => r.name), ['a', 'bb'], 'the aborted attempt left no row');
    await g.close();
  });

  it("counts each group's weight under the writer's name", async () => {
    const g = createGroupCommit<number>(s.ctx, {
      name: 'probe-metric',
      weight: (n) => n,
      commit: async () => {},
    });
    await Promise.all([g.submit(3), g.submit(4)]);
    const text = await s.ctx.metrics.registry.metrics();
    assert.match(text, /mailroom_group_commit_size_sum\{committer="probe-metric"\} 7/);
    assert.equal(g.stats.transactions, 1);
    await g.drain();
  });
});
