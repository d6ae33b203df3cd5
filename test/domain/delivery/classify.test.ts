// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyReply } from '../../../src/domain/delivery/classify.js';

describe('classifyReply', () => {
  const cases: Array<[string, string, string]> = [
    ['250 2.0.0 Ok: queued as 12345', 'delivered', ''],
    ['251 User not local; will forward', 'delivered', ''],
    ['450 4.2.1 Mailbox busy', 'transient', 'Transient'],
    ['421 4.7.0 Too many connections, closing', 'transient', 'Transient'],
    ['452 4.2.2 Mailbox full', 'transient', 'Transient'],
    ['503 5.5.1 Bad sequence of commands', 'client-fault', 'Transient'],
    ['550 5.1.1 <x@y>: Recipient address rejected: User unknown', 'permanent', 'HardBounce'],
    ['550 No such user here', 'permanent', 'HardBounce'],
    ['553 5.1.3 Bad recipient address syntax', 'permanent', 'BadEmailAddress'],
    ['552 5.2.2 Mailbox full', 'permanent', 'SoftBounce'],
    ['556 5.1.10 Recipient address has null MX', 'permanent', 'HardBounce'],
    ['550 5.7.26 Unauthenticated email is not accepted due to DMARC policy', 'permanent', 'DMARCPolicy'],
    ['554 5.7.1 Message rejected as spam', 'permanent', 'SpamNotification'],
    ['550 5.7.1 Service unavailable; client host blocked using Spamhaus', 'permanent', 'Blocked'],
    ['554 Transaction failed', 'permanent', 'Unknown'],
  ];
  for (const [reply, kind, type] of cases) {
    it(`${reply} -> ${kind} ${type}`, () => {
      const c = classifyReply(reply);
      assert.equal(c.kind, kind);
      assert.equal(c.bounceType, type);
    });
  }

  it('reads the codes; an answer without one is not a reply', () => {
    assert.deepEqual(classifyReply('550-5.1.1 multi-line first line'), { kind: 'permanent', code: 550, status: '5.1.1', bounceType: 'HardBounce' });
    assert.equal(classifyReply('connection reset').code, 0);
    assert.equal(classifyReply('connection reset').kind, 'transient');
    assert.equal(classifyReply('').kind, 'transient');
    assert.equal(classifyReply('5000 not a code').kind, 'transient');
  });
});
