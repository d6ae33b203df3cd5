// tier: unit
// The in-memory MIME composer (delivery/compose.ts, mail/mime-*.ts): what it builds parses back (postal-mime)
// to what was given, in every structure it makes, and stays 7-bit with lines within RFC 5322's limits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { composeMime, type ComposeInput } from '../../../src/domain/delivery/compose.js';
import { quotedPrintable, textField } from '../../../src/infra/mime/mime-encode.js';

const base = (o: Partial<ComposeInput> = {}): ComposeInput => ({
  messageIdHeader: '<id-1@bounces.example>',
  date: new Date('2026-11-21T08:00:00Z'),
  fromRaw: 'sender@example.com',
  replyTo: null,
  subject: 'hello',
  to: [{ name: '', email: 'a@dest.example' }],
  cc: [],
  html: null,
  text: 'hi',
  headers: [],
  attachments: [],
  ...o,
});

async function roundTrip(input: ComposeInput) {
  const raw = composeMime(input).toString('utf8');
  assert.ok(!/[^\x00-\x7f]/.test(raw), '7-bit clean');
  for (const line of raw.split('\r\n')) assert.ok(line.length <= 998, `line of ${line.length}`);
  assert.ok(!/(^|[^\r])\n/.test(raw) && !/\r(?!\n)/.test(raw), 'CRLF line ends only');
  return { raw, p: await PostalMime.parse(raw) };
}

describe('MIME composer', () => {
  it('encodes non-ASCII names, subjects and custom headers as RFC 2047 words, and keeps specials quoted', async () => {
    const subject = 'Заказ №42 — подтверждён, with a long tail of words to fold '.repeat(3).trim();
    const { raw, p } = await roundTrip(
      base({
        fromRaw: '"Ünïcödé Shop" <shop@example.com>',
        to: [
          { name: 'Doe, Jane "JD"', email: 'jane@dest.example' },
          { name: 'Jörg', email: 'jorg@dest.example' },
        ],
        cc: [{ name: 'plain name', email: 'c@dest.example' }],
        replyTo: 'Support <help@example.com>, other@example.com',
        subject,
        headers: [
          { Name: 'X-Note', Value: 'café' },
          { Name: 'Message-ID', Value: 'own-id@app.example' },
          { Name: 'Bcc', Value: 'hidden@x.example' },
        ],
      }),
    );
    assert.equal(p.subject, subject);
    assert.deepEqual(p.from, { name: 'Ünïcödé Shop', address: 'shop@example.com' });
    assert.deepEqual(p.to, [
      { name: 'Doe, Jane "JD"', address: 'jane@dest.example' },
      { name: 'Jörg', address: 'jorg@dest.example' },
    ]);
    assert.deepEqual(p.cc, [{ name: 'plain name', address: 'c@dest.example' }]);
    assert.deepEqual(p.replyTo, [
      { name: 'Support', address: 'help@example.com' },
      { name: '', address: 'other@example.com' },
    ]);
    // postal-mime leaves custom header values encoded: decode the RFC 2047 word here.
    const note = /^=\?UTF-8\?B\?([^?]+)\?=$/.exec(p.headers.find((h) => h.key === 'x-note')?.value ?? '');
    assert.equal(Buffer.from(note![1], 'base64').toString(), 'café');
    assert.equal(p.messageId, '<own-id@app.example>');
    assert.ok(!/^bcc:/im.test(raw));
    assert.match(raw, /^Date: Sat, 21 Nov 2026 08:00:00 \+0000$/m);
    for (const line of raw.split('\r\n\r\n')[0].split('\r\n')) assert.ok(line.length <= 90, line);
  });

  it('round-trips text that needs quoted-printable or base64, byte for byte', async () => {
    const tricky = ['a=b  ', '.leading dot', 'tab\tend\t', 'x'.repeat(200), '=3D literal', 'café ' + 'é'.repeat(100), ''].join('\n');
    const { raw, p } = await roundTrip(base({ text: tricky, html: `<p>${tricky}</p>` }));
    assert.match(raw, /multipart\/alternative/);
    // (postal-mime ends each text part with a line break of its own: compared without it.)
    assert.equal(p.text?.trimEnd(), tricky.replace(/\n/g, '\r\n').trimEnd());
    assert.equal(p.html?.trimEnd(), `<p>${tricky}</p>`.replace(/\n/g, '\r\n'));
    const cyrillic = 'Привет, мир! '.repeat(50);
    const b = await roundTrip(base({ text: cyrillic }));
    assert.match(b.raw, /Content-Transfer-Encoding: base64/);
    assert.equal(b.p.text?.trimEnd(), cyrillic.trimEnd());
    // Soft breaks never split an escape, and no encoded line passes 76 characters.
    for (const line of quotedPrintable('é'.repeat(60) + '=' + ' '.repeat(3)).split('\r\n')) {
      assert.ok(line.length <= 76 && /^(?:[!-<>-~ \t]|=[0-9A-F]{2})*=?$/.test(line), line);
    }
    assert.match(quotedPrintable('end  '), /^end =20$/);
  });

  it('builds related, mixed and single-part messages, with RFC 2231 file names', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const pdf = Buffer.alloc(3000, 7);
    const { raw, p } = await roundTrip(
      base({
        text: 'see attached',
        html: '<img src="cid:logo@x">',
        attachments: [
          { name: 'счёт №1.pdf', contentType: 'application/pdf', contentId: null, content: pdf.toString('base64') },
          { name: 'logo "1".png', contentType: 'image/png', contentId: 'logo@x', content: png.toString('base64') },
        ],
      }),
    );
    assert.match(raw, /multipart\/mixed/);
    assert.match(raw, /multipart\/related/);
    assert.equal(p.text?.trimEnd(), 'see attached');
    const inv = p.attachments.find((a) => a.mimeType === 'application/pdf')!;
    assert.equal(inv.filename, 'счёт №1.pdf');
    assert.deepEqual(Buffer.from(inv.content as ArrayBuffer), pdf);
    const logo = p.attachments.find((a) => a.mimeType === 'image/png')!;
    assert.equal(logo.filename, 'logo "1".png');
    assert.equal(logo.contentId, '<logo@x>');
    assert.equal(logo.disposition, 'inline');
    assert.deepEqual(Buffer.from(logo.content as ArrayBuffer), png);

    // Without content (the stored copy): same structure, empty parts.
    const stored = await PostalMime.parse(composeMime(base({ attachments: [{ name: 'a.bin', contentType: 'application/octet-stream', contentId: null, content: 'AAEC' }] }), false));
    assert.equal((stored.attachments[0].content as ArrayBuffer).byteLength, 0);

    const htmlOnly = await roundTrip(base({ text: null, html: '<b>only</b>' }));
    assert.match(htmlOnly.raw, /^Content-Type: text\/html; charset=utf-8$/m);
    assert.equal(htmlOnly.p.html?.trimEnd(), '<b>only</b>');
    const empty = await roundTrip(base({ text: null, html: null }));
    assert.match(empty.raw, /^Content-Type: text\/plain/m);
  });

  it('folds long header fields at spaces only, as nodemailer does (before the value when it cannot fit)', () => {
    const url = `<https://mail.example/unsubscribe/${'t'.repeat(120)}>`;
    assert.equal(textField('List-Unsubscribe', url), `List-Unsubscribe:\r\n ${url}`);
    const two = textField('List-Unsubscribe', `${url}, <mailto:u@mail.example>`);
    assert.equal(two, `List-Unsubscribe:\r\n ${url},\r\n <mailto:u@mail.example>`);
    const words = textField('X-Long', 'word '.repeat(40).trim());
    for (const line of words.split('\r\n')) assert.ok(line.length <= 78, line);
    assert.equal(words.replace(/\r\n/g, ''), `X-Long: ${'word '.repeat(40).trim()}`);
  });
});
