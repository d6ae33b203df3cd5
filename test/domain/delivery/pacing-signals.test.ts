// tier: unit
// What slows a destination and what defers one recipient (src/domain/delivery/pacing/signals.ts), the
// same-reply window (window.ts) with the time handed in, and the pacer acting on both over an in-memory store.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FailureStage } from '../../../src/domain/delivery/failure-stage.js';
import { Pacer, type PaceTicket } from '../../../src/domain/delivery/pacing/pacer.js';
import { DEFAULT_PACE_LIMITS, type PaceState } from '../../../src/domain/delivery/pacing/pace.js';
import { sameReplyKey, slowsDestination } from '../../../src/domain/delivery/pacing/signals.js';
import { SAME_REPLY_RECIPIENTS, SAME_REPLY_WINDOW_MS, SameReplyWindow } from '../../../src/domain/delivery/pacing/window.js';
import type { SendResult } from '../../../src/domain/delivery/transport.js';
import { createLogger } from '../../../src/infra/logger.js';
import { parseReply } from '../../../src/infra/smtp-client/replies.js';
import { TestClock } from '../../helpers/clock.js';

const failed = (text: string, stage: FailureStage, to = 'r@a.example'): SendResult => ({
  ok: false,
  reply: parseReply(text),
  server: 'mx',
  ip: '127.0.0.1',
  network: stage === 'connect' || stage === 'cut' || stage === 'local',
  stage,
  ...(stage === 'mail' || stage === 'rcpt' || stage === 'data' ? { exchange: { from: 'b@x', to, command: stage.toUpperCase() } } : {}),
});

describe('what slows a destination', () => {
  const slows: Array<[string, FailureStage]> = [
    ['421 4.7.0 Try again later, closing connection.', 'rcpt'],
    ['421 4.3.2 Service shutting down', 'data'],
    ['451 4.4.1 connect ECONNREFUSED 127.0.0.1:25', 'connect'],
    ['451 4.4.1 connection closed by the server', 'connect'],
    ['421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred', 'session'],
    ['454 4.7.0 Temporary authentication failure', 'session'],
    ['451 4.7.1 Try again later', 'mail'],
    ['450 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address.', 'rcpt'],
    ['451 4.7.500 Server busy. Please try again later from [192.0.2.1]. (S77719)', 'data'],
    ['450 4.7.1 Client host rejected: cannot find your hostname, [192.0.2.1]', 'rcpt'],
    ['454 Throttling failure: Maximum sending rate exceeded.', 'rcpt'],
  ];
  const recipientOnly: Array<[string, FailureStage]> = [
    ['451 4.7.1 Try again later', 'rcpt'],
    ['450 4.7.1 <grey@a.example>: Recipient address rejected: try again later', 'rcpt'],
    ['451 4.7.1 Try again later', 'data'],
    ['450 Rate limited, please slow down', 'rcpt'],
    ['450 4.2.1 Mailbox busy, try later', 'rcpt'],
    ['451 4.3.0 Temporary local problem', 'mail'],
    ['451 4.4.2 connection closed by the server', 'cut'],
    ['451 4.4.3 DNS lookup of a.example failed (ESERVFAIL)', 'local'],
    ['451 4.4.5 Not attempted: mx asked to slow down', 'local'],
    ['451 4.7.5 the certificate of mx did not verify', 'local'],
  ];
  for (const [t, stage] of slows) it(`slows: ${stage} ${t.slice(0, 50)}`, () => assert.equal(slowsDestination(failed(t, stage)), true));
  for (const [t, stage] of recipientOnly) it(`one recipient's: ${stage} ${t.slice(0, 50)}`, () => assert.equal(slowsDestination(failed(t, stage)), false));

  it('counts the same reply under one key whatever address or number it names', () => {
    const a = sameReplyKey(failed('450 4.7.1 <a@w.example>: Recipient address rejected: try again later (id 123)', 'rcpt', 'a@w.example'));
    const b = sameReplyKey(failed('450 4.7.1 <b@w.example>: Recipient address rejected: try again later (id 456)', 'rcpt', 'b@w.example'));
    assert.ok(a);
    assert.equal(a, b);
    assert.notEqual(sameReplyKey(failed('451 4.7.1 Try again later', 'rcpt')), a);
    assert.equal(sameReplyKey(failed('450 4.2.1 Mailbox busy, try later', 'rcpt')), null, 'a busy mailbox is no throttle');
    assert.equal(sameReplyKey(failed('450 4.7.1 Greylisted, try again later', 'rcpt')), null, 'greylisting ends by itself');
    assert.equal(sameReplyKey(failed('421 4.7.0 Try again later', 'rcpt')), null, 'slows by itself');
  });
});

describe('the same-reply window', () => {
  const t0 = Date.parse('2026-06-01T12:00:00Z');

  it(`trips at ${SAME_REPLY_RECIPIENTS} distinct recipients within ${SAME_REPLY_WINDOW_MS} ms, then counts again`, () => {
    const w = new SameReplyWindow();
    for (let i = 1; i < SAME_REPLY_RECIPIENTS; i++) assert.equal(w.note('k', `r${i}@a`, t0 + i), false);
    assert.equal(w.note('k', `r${SAME_REPLY_RECIPIENTS}@a`, t0 + 10), true);
    assert.equal(w.note('k', 'r1@a', t0 + 11), false, 'counting starts again');
  });

  it('counts one address once, however often it is deferred', () => {
    const w = new SameReplyWindow();
    for (let i = 0; i < 50; i++) assert.equal(w.note('k', i % 2 ? 'Grey@a' : 'grey@a', t0 + i), false);
  });

  it('forgets deferrals older than the window, and does not mix different replies', () => {
    const w = new SameReplyWindow();
    for (let i = 1; i < SAME_REPLY_RECIPIENTS; i++) w.note('k', `r${i}@a`, t0);
    assert.equal(w.note('other', 'x@a', t0 + 1), false);
    assert.equal(w.note('k', 'late@a', t0 + SAME_REPLY_WINDOW_MS), false, 'the first ones are a window old');
  });
});

describe('pacer and recipient deferrals', () => {
  class MemoryStore {
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
  const setup = (relay: string | null) => {
    const clock = new TestClock();
    clock.freeze('2026-06-01T12:00:00Z');
    const store = new MemoryStore();
    return { clock, store, pacer: new Pacer({ store, limits: DEFAULT_PACE_LIMITS, clock, logger: createLogger('silent'), relay }) };
  };
  const ticket = async (p: Pacer, domain: string, job: number): Promise<PaceTicket> => {
    const a = await p.admit(domain, job, 1);
    assert.equal(a.ok, true, JSON.stringify(a));
    return (a as { ticket: PaceTicket }).ticket;
  };

  it('through a relay, one address deferred again and again pauses nothing', async () => {
    const { pacer, store, clock } = setup('relay:smtp.example:587');
    for (let i = 0; i < 20; i++) {
      await (await ticket(pacer, 'a.example', i)).done([failed('451 4.7.1 Try again later', 'rcpt', 'grey@a.example')]);
      clock.advance(1000);
    }
    assert.equal(store.rows.size, 0);
    assert.equal((await pacer.admit('b.example', 99, 1)).ok, true);
  });

  it("through a relay, the relay's 421 or refused connection pauses the relay", async () => {
    for (const r of [failed('421 4.7.0 Too many connections', 'session'), failed('451 4.4.1 connect ECONNREFUSED', 'connect')]) {
      const { pacer, store, clock } = setup('relay:smtp.example:587');
      clock.advance(1);
      await (await ticket(pacer, 'a.example', 1)).done([r]);
      assert.deepEqual([...store.rows.keys()], ['relay:smtp.example:587']);
      assert.equal((await pacer.admit('b.example', 2, 1)).ok, false);
    }
  });
});
