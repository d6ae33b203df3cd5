// tier: unit
// What the console says became of a message: the worst outcome any recipient met, the API's Status aside.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outcomeOf } from '../../../src/domain/messages/outcome.js';

const msg = (o: Partial<{ status: string; sandbox: boolean; recipients: number }> = {}) => ({ id: 'm', status: 'Sent', sandbox: false, recipients: 1, ...o });

describe('outcomeOf', () => {
  it('a bounced message is Bounced, hard or soft by its bounce type, though its API Status is Sent', () => {
    assert.equal(outcomeOf(msg(), [{ type: 'Bounced', recipient: 'a@x.test', bounceType: 'HardBounce' }]).label, 'Bounced (hard)');
    assert.equal(outcomeOf(msg(), [{ type: 'Bounced', recipient: 'a@x.test', bounceType: 'BadEmailAddress' }]).kind, 'hard-bounce');
    assert.equal(outcomeOf(msg(), [{ type: 'Bounced', recipient: 'a@x.test', bounceType: 'SoftBounce' }]).label, 'Bounced (soft)');
    assert.equal(outcomeOf(msg(), [{ type: 'Delivered', recipient: 'a@x.test' }, { type: 'SpamComplaint', recipient: 'a@x.test' }]).label, 'Spam complaint');
  });

  it('Delivered, Queued, Failed, and Sandbox mail Captured, not sent', () => {
    assert.equal(outcomeOf(msg(), [{ type: 'Delivered', recipient: 'a@x.test' }]).label, 'Delivered');
    assert.equal(outcomeOf(msg({ status: 'Queued' }), []).label, 'Queued');
    assert.equal(outcomeOf(msg({ status: 'Failed' }), []).label, 'Failed');
    assert.equal(outcomeOf(msg({ sandbox: true }), []).label, 'Captured, not sent');
    // A fake bounce on a Sandbox server shows as the bounce it is.
    assert.equal(outcomeOf(msg({ sandbox: true }), [{ type: 'Bounced', recipient: 'a@x.test', bounceType: 'HardBounce' }]).label, 'Bounced (hard)');
  });

  it('one recipient of several bounced: the bounce names the message, with how many it concerns', () => {
    const o = outcomeOf(msg({ recipients: 3 }), [
      { type: 'Delivered', recipient: 'a@x.test' },
      { type: 'Delivered', recipient: 'b@x.test' },
      { type: 'Bounced', recipient: 'c@x.test', bounceType: 'HardBounce' },
    ]);
    assert.deepEqual(o, { kind: 'hard-bounce', label: 'Bounced (hard)', of: { count: 1, total: 3 } });
    assert.equal(outcomeOf(msg({ recipients: 3, status: 'Queued' }), [{ type: 'Bounced', recipient: 'c@x.test', bounceType: 'SoftBounce' }]).kind, 'soft-bounce');
  });
});
