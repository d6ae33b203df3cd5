// PostgreSQL: concurrent accepts into one Sandbox server, with read flags, tags and compactions beside them,
// leave the kept figures (migration 0038) equal to a fresh count, and spread over the connections' own rows
// (a single row per server would serialize every accepting transaction on its lock).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { inboxFigures } from '../../../src/domain/mailpit/counts.js';
import { setRead } from '../../../src/domain/mailpit/read-state.js';
import { setTags } from '../../../src/domain/mailpit/tags.js';
import { compactMailpitCounts } from '../../../src/infra/db/mailpit-counts.js';
import { TEST_DIALECT } from '../../helpers/database.js';
import { addConfirmedSender } from '../../helpers/senders.js';
import { startService, type TestService } from '../../helpers/service.js';

const FROM = 'app@shop.example';
const WRITERS = 8;
const ROUNDS = 4;
const BATCH = 20;

describe('kept Mailpit figures under concurrent accepts (PostgreSQL)', { skip: TEST_DIALECT === 'postgres' ? false : 'one writer on SQLite' }, () => {
  let s: TestService;
  let token: string;
  let serverId: number;

  before(async () => {
    s = await startService();
    await addConfirmedSender(s, FROM);
    const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'Busy inbox', DeliveryType: 'Sandbox' } });
    assert.equal(r.status, 200, r.text);
    token = r.body.ApiTokens[0];
    serverId = r.body.ID;
  });
  after(() => s.close());

  it('equal a fresh count after parallel batches, read flags, tags and compactions', async () => {
    const server = { id: serverId, accountId: 0, sandbox: true };
    const accepted: string[] = [];
    const writer = async (w: number) => {
      for (let round = 0; round < ROUNDS; round++) {
        const body = Array.from({ length: BATCH }, (_, i) => ({ From: FROM, To: `w${w}r${round}i${i}@dest.example`, Subject: 's', TextBody: 'x', Tag: `t${(w + i) % 5}` }));
        const r = await s.request('POST', '/email/batch', { token, body });
        assert.equal(r.status, 200, r.text);
        const ids = (r.body as Array<{ MessageID: string }>).map((m) => m.MessageID);
        accepted.push(...ids);
        // Beside the accepts: read flags and tags on this writer's messages, and a compaction.
        await setRead(s.ctx, server, ids.slice(0, 5), true);
        if (round % 2 === 0) await setTags(s.ctx, server, ids.slice(5, 8), ['shared', `w${w}`]);
        if (w % 4 === 0) await compactMailpitCounts(s.ctx.db, serverId);
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    assert.equal(accepted.length, WRITERS * ROUNDS * BATCH);

    const { rows } = await sql<{ tag: string | null; read: number | null; tags: string | null }>`
      select m.tag, s.read, s.tags from messages m left join mailpit_state s on s.message_id = m.id where m.server_id = ${serverId} and m.sandbox = 1`.execute(s.ctx.db);
    const tags = new Map<string, number>();
    for (const r of rows) for (const t of r.tags !== null ? (JSON.parse(r.tags) as string[]) : r.tag ? [r.tag] : []) tags.set(t, (tags.get(t) ?? 0) + 1);
    const kept = await inboxFigures(s.ctx, server);
    assert.deepEqual(
      { total: kept.total, unread: kept.unread, tags: Object.fromEntries([...kept.tags].sort()) },
      { total: rows.length, unread: rows.filter((r) => r.read !== 1).length, tags: Object.fromEntries([...tags].sort()) },
    );
    assert.equal(kept.total, WRITERS * ROUNDS * BATCH);

    // The accepts wrote through more than one connection's rows; a compaction folds them into slot 0.
    const slots = async () => Number((await sql<{ n: string }>`select count(distinct slot) as n from mailpit_counts where server_id = ${serverId}`.execute(s.ctx.db)).rows[0]!.n);
    await compactMailpitCounts(s.ctx.db, serverId);
    assert.equal(await slots(), 1);
    const after = await inboxFigures(s.ctx, server);
    assert.deepEqual([after.total, after.unread, [...after.tags]], [kept.total, kept.unread, [...kept.tags]]);
  });
});
