// tier: unit
// Header folding and encoded words (src/infra/mime/mime-encode.ts) are nodemailer's: the same output as its
// mime-funcs foldLines(line, 76) and encodeWord(text, 'B', 52) on words, runs of white space, long unbreakable
// tokens, non-ASCII of every UTF-8 length and lone surrogates; and each line within RFC 5322's 78 (RFC 2047's
// 76 for encoded words) wherever a break is possible.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import { addressField, encodeWords, foldField, foldLine, formatMailbox, param, textField } from '../../../src/infra/mime/mime-encode.js';

const lines = (s: string) => s.split('\r\n');
const longest = (s: string) => Math.max(...lines(s).map((l) => l.length));

// Deterministic text made of the pieces that decide where a fold goes.
function sample(seed: number, n: number): string {
  const pieces = ['a', 'word', 'longerword', ' ', '  ', '\t', 'x'.repeat(80), 'https://shop.example.com/account?id=1', '<id@example.com>', ',', ';'];
  let s = '';
  let x = seed;
  while (s.length < n) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    s += pieces[x % pieces.length];
  }
  return s;
}

describe('header folding as nodemailer folds', () => {
  it('foldLine equals mime-funcs foldLines at 76 on words, white-space runs and unbreakable tokens', () => {
    const cases = [
      '',
      'Subject: short',
      `Subject: ${'word '.repeat(40)}`,
      `Message-ID: <${'a'.repeat(60)}@bounces.example.com>`,
      `List-Unsubscribe: <https://mailroom.example.com/unsubscribe/${'T'.repeat(120)}>`,
      `X-A: ${'x'.repeat(200)} tail`,
      `X-B: ${' '.repeat(100)}y`,
      `X-C:${'a b'.repeat(60)}`,
      `X-D: ${'x'.repeat(75)}`,
      `X-E: ${'x'.repeat(71)}`,
      `X-F: ${'x'.repeat(70)} ${'y'.repeat(3)}`,
      `X-G: a${' '.repeat(75)}b c`,
    ];
    for (let seed = 1; seed <= 300; seed++) cases.push(`X-S: ${sample(seed, seed % 400)}`);
    for (const c of cases) assert.equal(foldLine(c), mimeFuncs.foldLines(c, 76), JSON.stringify(c));
  });

  it('encodeWords equals mime-funcs encodeWord(B, 52) for ASCII, 2-, 3- and 4-byte characters and lone surrogates', () => {
    const cases = ['é', 'Grüße aus München, schöne Grüße', '日本語の件名'.repeat(12), '🎉'.repeat(40), `Jürgen ${'x'.repeat(60)}`, 'a\ud800b'.repeat(20), 'ß'.repeat(15), 'ß'.repeat(16)];
    for (const c of cases) assert.equal(encodeWords(c), mimeFuncs.encodeWord(c, 'B', 52), c);
  });

  it('keeps every line of a non-ASCII subject, display name or address list within 76', () => {
    const subject = textField('Subject', `${'Grüße '.repeat(20)}日本語 🎉 ${'x'.repeat(30)}`);
    const to = addressField('To', [formatMailbox('Jürgen Müller-Lüdenscheidt von und zu Großherzogtum', 'juergen@example.de'), 'b@example.com', formatMailbox('Doe, Jane', 'jane@example.com')]);
    const many = addressField('Cc', Array.from({ length: 20 }, (_, i) => `person${i}@example.com`));
    for (const f of [subject, to, many]) assert.ok(longest(f) <= 76, f);
    assert.equal(subject, mimeFuncs.foldLines(`Subject: ${mimeFuncs.encodeWord(`${'Grüße '.repeat(20)}日本語 🎉 ${'x'.repeat(30)}`, 'B', 52)}`, 76));
    // Every folded line after the first begins with white space (RFC 5322 2.2.3).
    for (const f of [subject, to, many]) for (const l of lines(f).slice(1)) assert.match(l, /^[ \t]/);
  });

  it('writes long or non-ASCII parameters as RFC 2231 continuations that fold within 76', () => {
    const long = foldField('Content-Disposition', `attachment; ${param('filename', `${'quarterly report '.repeat(8)}.pdf`)}`);
    assert.ok(longest(long) <= 76, long);
    assert.match(long, /filename\*0="quarterly report/);
    const utf = foldField('Content-Disposition', `attachment; ${param('filename', `${'Übersicht '.repeat(10)}.pdf`)}`);
    assert.ok(longest(utf) <= 76, utf);
    assert.match(utf, /filename\*0\*=utf-8''%C3%9Cbersicht/);
    assert.equal(param('filename', 'short.pdf'), 'filename="short.pdf"');
    assert.equal(param('filename', 'ä.pdf'), "filename*=utf-8''%C3%A4.pdf");
  });

  it('folds a megabyte with one pass (no quadratic work on a long value)', () => {
    const big = `X-Big: ${'x'.repeat(1 << 20)} ${'word '.repeat(200_000)}`;
    const out = foldLine(big);
    assert.equal(out.replace(/\r\n/g, ''), big);
  });
});
