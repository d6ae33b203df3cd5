// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { addressChange, listRequest } from '../../../src/domain/bounces/recipient-requests.js';
import { firstLine, replyText } from '../../../src/domain/bounces/reply-text.js';

const mail = (subject: string, body: string, headers = '') =>
  PostalMime.parse(`From: Pat <pat@recipient.example>\r\nTo: bounce+x@bounces.localhost\r\nSubject: ${subject}\r\n${headers}\r\n${body.replace(/\n/g, '\r\n')}`);

describe('listRequest: list commands from people', () => {
  const cases: Array<[subject: string, body: string, expected: 'Unsubscribe' | 'Subscribe' | null]> = [
    // The subject alone (the RFC 2369 mailto: convention, and people who know it).
    ['unsubscribe', '', 'Unsubscribe'],
    ['UNSUBSCRIBE', 'sent from my phone', 'Unsubscribe'],
    ['Remove', '', 'Unsubscribe'],
    ['Stop', '', 'Unsubscribe'],
    ['unsubscribe pat@recipient.example', '', 'Unsubscribe'],
    ['subscribe', '', 'Subscribe'],
    // The first line the author wrote, whatever the subject.
    ['Re: Your receipt', 'Unsubscribe\n\nOn Sat, 21 Nov 2026, Acme wrote:\n> Thanks', 'Unsubscribe'],
    ['RE: Weekly deals', 'REMOVE ME from your list please.', 'Unsubscribe'],
    ['Re: x', 'Please unsubscribe me.', 'Unsubscribe'],
    ['Re: x', 'take me off your list!', 'Unsubscribe'],
    ['AW: Angebot', 'Abbestellen', 'Unsubscribe'],
    ['TR: Offre', 'Désabonner', 'Unsubscribe'],
    ['Re: x', 'opt-out', 'Unsubscribe'],
    ['Re: x', 'Subscribe me, please.', 'Subscribe'],
    ['Re: x', 'add me to your list', 'Subscribe'],
    // Not commands: sentences, confirmations, a reply that merely repeats our subject, a quoted footer.
    ['Re: Stop', 'Thanks, got it', null],
    ['Unsubscribe confirmation', '', null],
    ['Re: x', 'Can you remove the extra item from my order?', null],
    ['Re: x', 'Thanks!\n> Unsubscribe here: https://mailroom.example/unsubscribe/abc', null],
    ['Re: x', 'Please stop the delivery of order 1234, I will pick it up', null],
    ['Hello', 'Is anyone reading this mailbox?', null],
  ];
  for (const [subject, body, expected] of cases) {
    it(`${JSON.stringify(subject)} / ${JSON.stringify(body.split('\n')[0])} -> ${expected}`, async () => {
      assert.equal((await listRequest(await mail(subject, body)))?.request ?? null, expected);
    });
  }

  it('never reads an auto-reply as a request (RFC 3834)', async () => {
    assert.equal(listRequest(await mail('unsubscribe', '', 'Auto-Submitted: auto-replied\r\n')), null);
    assert.equal(listRequest(await mail('Automatic reply: x', 'Remove', '')), null);
  });

  it('reads an HTML-only reply up to its quote', async () => {
    const html = '<div dir="ltr">Unsubscribe&nbsp;</div><blockquote>Subscribe</blockquote>';
    const m = await mail('Re: x', html, 'Content-Type: text/html; charset=utf-8\r\n');
    assert.equal(listRequest(m)?.request, 'Unsubscribe');
  });
});

describe('addressChange: notices of a new address', () => {
  const ours = ['pat@recipient.example', 'bounce+x@bounces.localhost'];
  const cases: Array<[subject: string, body: string, expected: string | null | false]> = [
    ['Automatic reply: x', 'Please note that my email address has changed. Write to pat@new.example.', 'pat@new.example'],
    ['Re: x', 'I have a new email address: pat.r@home.example', 'pat.r@home.example'],
    ['Change of address', 'From Monday I read mail at pat@elsewhere.example.', 'pat@elsewhere.example'],
    ['Adressänderung', 'Bitte nutzen Sie ab sofort pat@neu.example', 'pat@neu.example'],
    ['Re: x', 'This mailbox is no longer monitored. Please update your records.', null],
    ['Re: x', 'This address is no longer in use; contact billing@recipient.example instead.', 'billing@recipient.example'],
    // Not address changes.
    ['Out of office', 'I am away until Monday. For urgent matters write to kim@recipient.example.', false],
    ['Re: x', 'This mailbox is no longer monitored.', false],
    ['Re: x', 'Thanks!\n\nOn Sat, Acme wrote:\n> My new address is help@acme.example', false],
  ];
  for (const [subject, body, expected] of cases) {
    it(`${JSON.stringify(subject)} / ${JSON.stringify(body.slice(0, 40))}`, async () => {
      const r = addressChange(await mail(subject, body), ours);
      if (expected === false) assert.equal(r, null);
      else assert.deepEqual(r, { newAddress: expected });
    });
  }
});

describe('replyText', () => {
  it('stops at quotes, forwarded originals and the signature separator (RFC 3676 4.3)', async () => {
    for (const body of [
      'Hello\n> quoted',
      'Hello\n\nOn Sat, 21 Nov 2026 at 05:40, Acme <a@b> wrote:\nx',
      'Hello\n-----Original Message-----\nFrom: a',
      'Hello\nFrom: Acme <a@b>\nSent: Saturday\nx',
      'Hello\n-- \nPat',
      'Hello\nAm 21.11.2026 um 05:40 schrieb Acme:\nx',
    ]) {
      const t = replyText(await mail('x', body));
      assert.equal(t.trim(), 'Hello', JSON.stringify(body));
      assert.equal(firstLine(t), 'Hello');
    }
  });
});
