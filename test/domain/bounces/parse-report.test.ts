// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messageIdFromHeader, PARSE_LIMIT_BYTES, parseReport } from '../../../src/domain/bounces/parse-report.js';
import { loadFixture, SAMPLE_VALUES } from '../../fixtures/load.js';

const R = SAMPLE_VALUES.recipient;

// One row per sample: what a person reading the report would conclude.
const CORPUS: Array<[file: string, kind: string, type: string | null, permanent: boolean, detailsHas?: string]> = [
  ['postfix-unknown-user.eml', 'dsn', 'HardBounce', true, 'unknown user'],
  ['postfix-delayed.eml', 'dsn', 'Transient', false, 'Connection timed out'],
  ['exim-blocklist.eml', 'dsn', 'Blocked', true, 'spamhaus'],
  ['exim-plain-unrouteable.eml', 'bounce', 'HardBounce', true, 'Unrouteable address'],
  ['sendmail-mailbox-full.eml', 'dsn', 'SoftBounce', true, 'Mailbox full'],
  ['exchange-online-not-found.eml', 'dsn', 'HardBounce', true, 'RecipientNotFound'],
  ['gmail-no-such-user.eml', 'dsn', 'HardBounce', true, 'does not exist'],
  ['gmail-dmarc.eml', 'dsn', 'DMARCPolicy', true, 'DMARC policy'],
  ['yahoo-no-account.eml', 'bounce', 'HardBounce', true, "doesn't have a yahoo.com account"],
  ['qmail-over-quota.eml', 'bounce', 'SoftBounce', true, 'over quota'],
  ['arf-yahoo-abuse.eml', 'arf', 'SpamComplaint', true, 'abuse'],
  ['arf-redacted.eml', 'arf', 'SpamComplaint', true, 'Microsoft JMRP'],
  ['auto-reply-exchange.eml', 'autoreply', 'AutoResponder', false],
  ['vacation-rfc3834.eml', 'autoreply', 'AutoResponder', false],
  ['challenge-response.eml', 'autoreply', 'ChallengeVerification', false],
  ['not-a-bounce.eml', 'unknown', null, false],
  // What recipients ask for (docs/reference/bounces.md: AddressChange 128, Unsubscribe 16, Subscribe 32).
  ['address-change-autoreply.eml', 'autoreply', 'AddressChange', false, 'new address: jane.doe@newcompany.example'],
  ['address-change-no-longer-monitored.eml', 'autoreply', 'AddressChange', false, 'new address: ap@finance.recipient.example'],
  ['address-change-person.eml', 'autoreply', 'AddressChange', false, 'new address: tom.r@personal.example'],
  ['unsubscribe-reply-gmail.eml', 'request', 'Unsubscribe', false, 'Unsubscribe request: Unsubscribe'],
  ['unsubscribe-mailto.eml', 'request', 'Unsubscribe', false, 'unsubscribe'],
  ['remove-me-outlook.eml', 'request', 'Unsubscribe', false, 'REMOVE ME from your list please.'],
  ['subscribe-request.eml', 'request', 'Subscribe', false, 'Subscribe me, please.'],
  // Look-alikes: a vacation reply naming a colleague and quoting a list footer, and a person's reply that
  // quotes our "Unsubscribe" footer and an address-change line.
  ['vacation-with-colleague.eml', 'autoreply', 'AutoResponder', false],
  ['reply-quoting-footer.eml', 'unknown', null, false],
];

describe('parseReport over the sample corpus', () => {
  for (const [file, kind, type, permanent, detailsHas] of CORPUS) {
    it(`${file}: ${kind} ${type ?? '(nothing)'}`, async () => {
      const r = await parseReport(loadFixture(file));
      assert.equal(r.kind, kind);
      if (type === null) return assert.equal(r.results.length, 0);
      assert.equal(r.results.length, 1);
      const [x] = r.results;
      assert.equal(x.type, type);
      assert.equal(x.permanent, permanent);
      if (detailsHas) assert.ok(x.details.includes(detailsHas), `${x.details} should mention ${detailsHas}`);
      if (kind === 'dsn' || kind === 'bounce') assert.equal(x.email?.toLowerCase(), R);
      // The original message is found in every report that carries one.
      if (kind !== 'autoreply') assert.equal(messageIdFromHeader(r.original.messageId), SAMPLE_VALUES.messageId, 'original Message-ID');
    });
  }

  it('reads per-recipient fields of a DSN exactly (RFC 3464)', async () => {
    const r = await parseReport(loadFixture('gmail-no-such-user.eml'));
    const [x] = r.results;
    assert.equal(x.action, 'failed');
    assert.equal(x.status, '5.1.1');
    assert.match(x.remoteMta!, /^gmail-smtp-in\.l\.google\.com\./);
    assert.match(x.diagnostic!, /^550-5\.1\.1 The email account/);
    assert.equal(r.original.returnPath, SAMPLE_VALUES.verp);
  });

  it('gives one result per failed recipient and skips delivered ones', async () => {
    const raw = loadFixture('postfix-unknown-user.eml').replace(
      'Diagnostic-Code: X-Postfix; unknown user: "nobody"\r\n',
      'Diagnostic-Code: X-Postfix; unknown user: "nobody"\r\n\r\nFinal-Recipient: rfc822; ok@recipient.example\r\nAction: delivered\r\nStatus: 2.0.0\r\n\r\nFinal-Recipient: rfc822; full@recipient.example\r\nAction: failed\r\nStatus: 5.2.2\r\nDiagnostic-Code: smtp; 552 5.2.2 Mailbox full\r\n',
    );
    const r = await parseReport(raw);
    assert.deepEqual(
      r.results.map((x) => [x.email, x.type]),
      [
        [R, 'HardBounce'],
        ['full@recipient.example', 'SoftBounce'],
      ],
    );
  });

  it('reads a report with a huge returned original from its head', async () => {
    const dsn = loadFixture('postfix-unknown-user.eml');
    const at = dsn.lastIndexOf('--4Xk2Lq0bR1z9sT');
    const huge = dsn.slice(0, at) + `${'x'.repeat(98)}\r\n`.repeat(50_000) + dsn.slice(at);
    assert.ok(Buffer.byteLength(huge) > 8 * PARSE_LIMIT_BYTES);
    const r = await parseReport(Buffer.from(huge));
    assert.equal(r.results[0]?.type, 'HardBounce');
    assert.equal(messageIdFromHeader(r.original.messageId), SAMPLE_VALUES.messageId);
  });

  it('survives hostile and broken input', async () => {
    for (const raw of ['', '\r\n\r\n', 'garbage without headers', 'Content-Type: multipart/report; boundary=x\r\n\r\n--x\r\nContent-Type: message/delivery-status\r\n\r\n\u0000\u0001:::\r\n--x', 'Content-Type: multipart/mixed; boundary=a\r\n\r\n'.repeat(300)]) {
      const r = await parseReport(raw);
      assert.ok(['unknown', 'dsn', 'bounce'].includes(r.kind));
    }
    const deep = `${'Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n'.repeat(100)}x`;
    assert.equal((await parseReport(deep)).results.length, 0);
  });

  it('finds the message id in our Message-ID header', () => {
    assert.equal(messageIdFromHeader('<0123456789ABCDEF0123456789ABCDEF@mailroom>'), SAMPLE_VALUES.messageId);
    assert.equal(messageIdFromHeader('<something@else>'), null);
  });
});
