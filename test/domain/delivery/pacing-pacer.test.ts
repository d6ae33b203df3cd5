// tier: unit
// One process's pacer (src/domain/delivery/pacing/pacer.ts) over an in-memory state store and a driven
// clock: the connection cap, the spacing of a fixed rate with slots handed to deferred jobs, the pause after
// a throttling reply, and the relay as one destination without a connection cap.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pacer, type Admission, type PaceTicket } from '../../../src/domain/delivery/pacing/pacer.js';
import { DEFAULT_PACE_LIMITS, type PaceLimits, type PaceState } from '../../../src/domain/delivery/pacing/pace.js';
import type { PaceStateStore } from '../../../src/domain/delivery/pacing/store.js';
import type { SendResult } from '../../../src/domain/delivery/transport.js';
import { createLogger } from '../../../src/infra/logger.js';
import { parseReply } from '../../../src/infra/smtp-client/replies.js';
import { TestClock } from '../../helpers/clock.js';

class MemoryStore implements PaceStateStore {
  rows = new Map<string, PaceState>();
  async get(d: string) {
    return this.rows.get(d) ?? null;
  }
  async update(d: string, _now: number, change: (s: PaceState | null) => PaceState | null) {
    const next = change(this.rows.get(d) ?? null);
    if (next) this.rows.set(d, next);
    else this.rows.delete(d);
    return next;
  }
}

function setup(limits: Partial<PaceLimits> = {}, relay: string | null = null) {
  const clock = new TestClock();
  clock.freeze('2026-06-01T12:00:00Z');
  const store = new MemoryStore();
  const pacer = new Pacer({ store, limits: { ...DEFAULT_PACE_LIMITS, ...limits }, clock, logger: createLogger('silent'), relay });
  return { clock, store, pacer };
}

const ok = (): SendResult => ({ ok: true, reply: parseReply('250 2.0.0 Ok'), server: 'mx', ip: '127.0.0.1' });
const refused = (text: string): SendResult => ({ ok: false, reply: parseReply(text), server: 'mx', ip: '127.0.0.1', network: false });
const ticket = (a: Admission): PaceTicket => {
  assert.equal(a.ok, true, JSON.stringify(a));
  return (a as { ticket: PaceTicket }).ticket;
};

describe('pacer', () => {
  it('holds a job until a connection to its destination is free, the others not', async () => {
    const { pacer } = setup({ maxConnections: 2 });
    const t1 = ticket(await pacer.admit('a.example', 1, 1));
    const t2 = ticket(await pacer.admit('A.example', 2, 1));
    let third: PaceTicket | null = null;
    const waiting = pacer.admit('a.example', 3, 1).then((a) => (third = ticket(a)));
    ticket(await pacer.admit('b.example', 4, 1));
    await new Promise((r) => setImmediate(r));
    assert.equal(third, null, 'the third connection to a.example waits');
    await t1.done([ok()]);
    await waiting;
    assert.ok(third);
    await t2.done([ok()]);
  });

  it('spaces a fixed rate and hands deferred jobs their own slots', async () => {
    const { pacer, clock } = setup({ maxRatePerMinute: 6 }); // one message every 10 s
    const first = ticket(await pacer.admit('a.example', 1, 1));
    await first.done([ok()]);
    const t0 = clock.now();
    const r2 = await pacer.admit('a.example', 2, 1);
    const r3 = await pacer.admit('a.example', 3, 1);
    assert.deepEqual(r2, { ok: false, until: t0 + 10_000, reason: 'rate' });
    assert.deepEqual(r3, { ok: false, until: t0 + 20_000, reason: 'rate' });
    clock.advance(10_000);
    // Job 2 comes back at its slot and goes; a newcomer at that moment waits behind job 3's slot.
    await ticket(await pacer.admit('a.example', 2, 1)).done([ok()]);
    const r4 = await pacer.admit('a.example', 4, 1);
    assert.equal(!r4.ok && r4.until, t0 + 30_000);
    clock.advance(10_000);
    await ticket(await pacer.admit('a.example', 3, 1)).done([ok()]);
  });

  it('pauses a destination that throttles, counts the replies of jobs already in flight once, and recovers', async () => {
    const { pacer, clock, store } = setup({ maxConnections: 4, baseBackoffMs: 60_000 });
    for (let i = 0; i < 20; i++) await ticket(await pacer.admit('a.example', 100 + i, 1)).done([ok()]);
    const inFlight = [ticket(await pacer.admit('a.example', 1, 1)), ticket(await pacer.admit('a.example', 2, 1))];
    clock.advance(1);
    await inFlight[0].done([refused('421 4.7.0 Try again later, closing connection.')]);
    await inFlight[1].done([refused('450 4.7.28 unusual rate of unsolicited mail')]);
    const s = store.rows.get('a.example')!;
    assert.equal(s.strikes, 1, 'two jobs in flight met one throttle');
    assert.equal(s.ratePerMinute, 11, 'half of the 22 sent in the last minute');
    const held = await pacer.admit('a.example', 3, 1);
    assert.deepEqual(held, { ok: false, until: clock.now() + 60_000, reason: 'paused' });
    assert.equal((await pacer.admit('b.example', 4, 1)).ok, true, 'another destination goes on');

    clock.advance(60_000);
    const back = ticket(await pacer.admit('a.example', 3, 1));
    await back.done([ok()]);
    assert.equal(store.rows.get('a.example')!.ratePerMinute, 12);
    assert.equal(store.rows.get('a.example')!.strikes, 0);
    // Each delivery adds 1/min: ten more deliveries (each at its slot) and a.example is no longer paced.
    for (let i = 0; i < 10 && store.rows.has('a.example'); i++) {
      clock.advance(10_000);
      await ticket(await pacer.admit('a.example', 200 + i, 1)).done([ok()]);
    }
    assert.equal(store.rows.has('a.example'), false);
  });

  it('a greylisting or mailbox-busy reply does not slow the destination', async () => {
    const { pacer, store } = setup();
    await ticket(await pacer.admit('a.example', 1, 1)).done([refused('450 4.7.1 Greylisted, please try again later')]);
    await ticket(await pacer.admit('a.example', 2, 1)).done([refused('450 4.2.1 Mailbox busy, try later')]);
    assert.equal(store.rows.size, 0);
  });

  it('with a relay, every domain is one destination, and its connections are not capped here', async () => {
    const { pacer, store, clock } = setup({ maxConnections: 1 }, 'relay:smtp.example:587');
    const held = [ticket(await pacer.admit('a.example', 1, 1)), ticket(await pacer.admit('b.example', 2, 1))];
    clock.advance(1);
    await held[0].done([refused('454 Throttling failure: Maximum sending rate exceeded.')]);
    await held[1].done([ok()]);
    assert.deepEqual([...store.rows.keys()], ['relay:smtp.example:587']);
    assert.equal((await pacer.admit('c.example', 3, 1)).ok, false, 'the whole relay is paused');
  });
});
