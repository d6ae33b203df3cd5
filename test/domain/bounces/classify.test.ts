// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyStatus } from '../../../src/domain/bounces/classify.js';
import { BOUNCE_TYPES } from '../../../src/domain/bounces/types.js';

const c = (input: Parameters<typeof classifyStatus>[0]) => classifyStatus(input);

describe('classifyStatus', () => {
  it('decides by the enhanced status code first (RFC 3463)', () => {
    assert.deepEqual(c({ status: '5.1.1' }), { type: 'HardBounce', permanent: true });
    assert.deepEqual(c({ status: '5.1.10', text: '550 5.1.10 RESOLVER.ADR.RecipientNotFound' }), { type: 'HardBounce', permanent: true });
    assert.deepEqual(c({ status: '5.1.3' }), { type: 'BadEmailAddress', permanent: true });
    assert.deepEqual(c({ status: '5.2.2' }), { type: 'SoftBounce', permanent: true });
    assert.deepEqual(c({ status: '4.2.2' }), { type: 'SoftBounce', permanent: false });
    assert.deepEqual(c({ status: '5.4.4' }), { type: 'DnsError', permanent: true });
    assert.deepEqual(c({ status: '4.4.3' }), { type: 'DnsError', permanent: false });
    assert.deepEqual(c({ status: '4.7.0', text: '451 4.7.0 Try again later, greylisted' }), { type: 'Transient', permanent: false });
    assert.deepEqual(c({ status: '5.7.26' }), { type: 'DMARCPolicy', permanent: true });
    assert.deepEqual(c({ status: '5.7.1', text: '550 5.7.1 Service unavailable; client host blocked using zen.spamhaus.org' }).type, 'Blocked');
    assert.deepEqual(c({ status: '5.7.1', text: "550 5.7.1 Unauthenticated email is not accepted due to domain's DMARC policy" }).type, 'DMARCPolicy');
    assert.deepEqual(c({ status: '5.7.1', text: '550 5.7.1 Message rejected as spam by Content Filtering' }).type, 'SpamNotification');
    assert.deepEqual(c({ status: '5.7.1', text: '550 5.7.1 Delivery not authorized' }).type, 'Blocked');
    // The status code outranks misleading text.
    assert.equal(c({ status: '5.1.1', text: 'mailbox full' }).type, 'HardBounce');
  });

  it('falls back to the diagnostic text for generic or absent codes', () => {
    assert.equal(c({ code: 550, text: '550 Requested action not taken: mailbox unavailable' }).type, 'HardBounce');
    assert.equal(c({ text: "554 delivery error: dd This user doesn't have a yahoo.com account (x@yahoo.com) [0] - mta1.mail.bf1.yahoo.com" }).type, 'HardBounce');
    assert.equal(c({ text: '554 delivery error: dd Sorry your message to x@yahoo.com cannot be delivered. This mailbox is disabled (554.30)' }).type, 'SoftBounce');
    assert.equal(c({ status: '5.0.0', text: 'Host or domain name not found. Name service error for name=nx.example type=A: Host not found' }).type, 'DnsError');
    assert.equal(c({ status: '5.5.0', text: '550 5.5.0 Requested action not taken: mailbox unavailable' }).type, 'HardBounce');
    assert.equal(c({ status: '5.4.1', text: '550 5.4.1 Recipient address rejected: Access denied. AS(201806281)' }).type, 'HardBounce');
    assert.equal(c({ code: 552, text: '552 Requested mail action aborted: exceeded storage allocation' }).type, 'SoftBounce');
    assert.equal(c({ code: 550, text: '550 go away' }).type, 'HardBounce');
    assert.equal(c({ code: 554, text: '554 no' }).type, 'Unknown');
    assert.equal(c({ text: '' }).type, 'Transient');
  });

  it('treats 4xx and delayed DSNs as temporary, never suppressing', () => {
    assert.deepEqual(c({ code: 450, text: '450 4.1.1 <x@y>: Recipient address rejected: User unknown' }), { type: 'Transient', permanent: false });
    assert.deepEqual(c({ code: 421, text: '421 Too many connections' }), { type: 'Transient', permanent: false });
    assert.deepEqual(c({ action: 'delayed', status: '5.1.1' }), { type: 'Transient', permanent: false });
    assert.deepEqual(c({ text: 'user unknown' }), { type: 'Transient', permanent: false });
    assert.deepEqual(c({ action: 'failed', text: 'user unknown' }), { type: 'HardBounce', permanent: true });
  });

  it('reads the status and reply code out of the text when not given', () => {
    assert.deepEqual(c({ text: 'smtp; 550-5.1.1 The email account that you tried to reach does not exist.' }), { type: 'HardBounce', permanent: true });
    assert.deepEqual(c({ text: '452-4.2.2 The email account that you tried to reach is over quota.' }), { type: 'SoftBounce', permanent: false });
  });

  it('only ever answers published types', () => {
    const samples = ['5.1.1', '5.2.1', '5.3.4', '5.4.7', '5.5.3', '5.6.0', '5.7.20', '4.0.0', '2.0.0', 'garbage'];
    for (const status of samples) assert.ok(BOUNCE_TYPES[c({ status, text: 'x' }).type], status);
  });
});

describe('classifyStatus on replies of common providers', () => {
  const cases: Array<[string, string, boolean]> = [
    ['550-5.1.1 The email account that you tried to reach does not exist.', 'HardBounce', true],
    ['552-5.2.2 The email account that you tried to reach is over quota.', 'SoftBounce', true],
    ['550-5.2.1 The email account that you tried to reach is disabled.', 'SoftBounce', true],
    ['550-5.7.1 Our system has detected that this message is likely unsolicited mail.', 'SpamNotification', true],
    ['421-4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address.', 'Transient', false],
    ['550 5.7.26 This mail has been blocked because the sender is unauthenticated.', 'DMARCPolicy', true],
    ["550 5.7.1 Unfortunately, messages from [198.51.100.7] weren't sent. Part of their network is on our block list (S3150).", 'Blocked', true],
    ['550 5.7.606 Access denied, banned sending IP [198.51.100.7].', 'Blocked', true],
    ['550 5.4.1 Recipient address rejected: Access denied. AS(201806281)', 'HardBounce', true],
    ['553 5.7.2 [TSS09] All messages from 198.51.100.7 will be permanently deferred', 'Blocked', true],
    ['421 4.7.0 [TSS04] Messages from 198.51.100.7 temporarily deferred due to unexpected volume or user complaints', 'Transient', false],
    ['552 1 Requested mail action aborted, mailbox not found', 'HardBounce', true],
    ['554 30 Sorry, your message size exceeds 41943040 bytes.', 'SoftBounce', true],
    ['550 Rejected by header based Anti-Spoofing policy', 'Blocked', true],
    ['550 5.7.17 Mailbox owner has changed', 'HardBounce', true],
    ['554 5.7.0 Reject, id=12345 - INFECTED: Eicar-Test-Signature', 'VirusNotification', true],
    ['450 4.2.0 <a@b.example>: Recipient address rejected: Greylisted', 'Transient', false],
    ['550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup', 'HardBounce', true],
    ['554 5.4.4 SMTPSEND.DNS.NonExistentDomain; nonexistent domain', 'DnsError', true],
  ];
  for (const [reply, type, permanent] of cases) {
    it(reply.slice(0, 60), () => assert.deepEqual(classifyStatus({ text: reply }), { type, permanent }));
  }
});
