// SpamAssassin through a real spamd: its verdict becomes X-Spam-* headers, and the server's
// InboundSpamThreshold blocks mail scored above it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseSpamdAnswer } from '../../../src/infra/spamd/spamc.js';
import { GTUBE, spamdInstalled, startSpamd, type Spamd } from '../../helpers/spamd.js';
import { sendInbound, startInbound, type InboundSetup } from './inbound-helpers.js';

describe('inbound spam scoring with spamd', { skip: spamdInstalled() ? false : 'spamd is not installed (scripts/setup.sh installs spamassassin)' }, () => {
  let spamd: Spamd;
  let t: InboundSetup;
  before(async () => {
    spamd = await startSpamd();
    t = await startInbound({ MAILROOM_SPAMD: spamd.address });
  });
  after(async () => {
    await t?.close();
    await spamd?.stop();
  });

  const details = async (answer: { response: string }) => {
    const id = /as ([0-9a-f-]{36})/.exec(answer.response)![1];
    return (await t.s.request('GET', `/messages/inbound/${id}/details`)).body;
  };
  const header = (d: any, name: string) => d.Headers.find((h: any) => h.Name === name)?.Value;

  it('scores every message; with no threshold (0) spam is still posted', async () => {
    // The sender's own spam verdict is removed: mailroom scores the message itself (issue 27).
    const answer = await sendInbound(t.s, {
      to: t.address,
      subject: 'GTUBE, no threshold',
      text: `Test\n${GTUBE}\n`,
      headers: { 'X-Spam-Status': 'No, score=-50', 'X-Spam-Score': '-50', 'X-Spam-Flag': 'NO' },
    });
    assert.ok(answer.ok, answer.response);
    await t.s.drain();
    const d = await details(answer);
    assert.equal(d.Status, 'Processed');
    assert.equal(header(d, 'X-Spam-Status'), 'Yes');
    assert.ok(Number(header(d, 'X-Spam-Score')) >= 1000);
    assert.match(header(d, 'X-Spam-Tests'), /GTUBE/);
    assert.equal(d.Headers.filter((h: any) => h.Name.toLowerCase() === 'x-spam-score').length, 1, 'only mailroom\'s score');
    assert.equal(header(d, 'X-Spam-Flag'), undefined);
    assert.ok(d.SpamScore >= 1000);
  });

  it('blocks mail above InboundSpamThreshold and posts mail below it', async () => {
    assert.equal((await t.s.request('PUT', '/server', { body: { InboundSpamThreshold: 5 } })).status, 200);
    const spam = await sendInbound(t.s, { to: t.address, subject: 'GTUBE above threshold', text: `Buy now\n${GTUBE}\n` });
    assert.ok(spam.ok, spam.response);
    const ham = await sendInbound(t.s, { to: t.address, subject: 'An ordinary question', text: 'Could you tell me when my parcel ships?\n\nThanks,\nJane\n' });
    assert.ok(ham.ok, ham.response);
    await t.s.drain();
    const blocked = await details(spam);
    assert.equal(blocked.Status, 'Blocked');
    assert.match(blocked.BlockedReason, /above the server's InboundSpamThreshold of 5/);
    assert.equal(t.app.requests.filter((r) => r.json?.Subject === 'GTUBE above threshold').length, 0);
    const ok = await details(ham);
    assert.equal(ok.Status, 'Processed');
    assert.equal(header(ok, 'X-Spam-Status'), 'No');
    assert.ok(t.app.requests.some((r) => r.json?.Subject === 'An ordinary question'));
  });

  it('answers 451 while spamd is unreachable, so the sender keeps the message', async () => {
    await spamd.stop();
    const answer = await sendInbound(t.s, { to: t.address, subject: 'spamd down' });
    assert.equal(answer.ok, false);
    assert.equal(answer.code, 451);
    const stored = await t.s.request('GET', '/messages/inbound?count=50&offset=0&subject=spamd%20down');
    assert.equal(stored.body.TotalCount, 0);
  });
});

describe('spamd answers', () => {
  it('parses the SYMBOLS answer', () => {
    const v = parseSpamdAnswer('SPAMD/1.1 0 EX_OK\r\nContent-length: 10\r\nSpam: True ; 1002.5 / 5.0\r\n\r\nGTUBE,NO_RELAYS');
    assert.deepEqual(v, { isSpam: true, score: 1002.5, threshold: 5, tests: ['GTUBE', 'NO_RELAYS'] });
    assert.throws(() => parseSpamdAnswer('SPAMD/1.1 76 Bad header line'), /refused/);
  });
});
