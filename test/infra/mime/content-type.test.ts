// tier: unit
// An attachment's Content-Type (issue 27): read in one linear pass, composite types recognized, and each
// parameter written once in the composed part, mailroom's own file name in place of the client's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { composeMime, type ComposeInput } from '../../../src/domain/delivery/compose.js';
import { isComposite, parseContentType, type ContentType } from '../../../src/infra/mime/content-type.js';
import { assertWithin, LEFT_TO_PERF, TIMED } from '../../helpers/timing.js';

const parsed = (v: string): ContentType => {
  const ct = parseContentType(v);
  assert.equal(typeof ct, 'object', `${v}: ${String(ct)}`);
  return ct as ContentType;
};

const message = (contentType: string): ComposeInput => ({
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
  attachments: [{ name: 'report.pdf', contentType, contentId: null, content: Buffer.from('%PDF-1.4').toString('base64') }],
});

/** The attachment part's Content-Type field, unfolded. */
function attachmentField(raw: string): string {
  const part = raw.split(/\r\n--/).find((p) => /Content-Disposition: attachment/.test(p))!;
  return /^Content-Type: (.*(?:\r\n[ \t].*)*)/m.exec(part)![1]!.replace(/\r\n[ \t]/g, ' ');
}

describe('attachment Content-Type', () => {
  it('reads type, subtype and parameters, quoted or not, each name once', () => {
    assert.deepEqual(parsed('Application/PDF'), { type: 'application', subtype: 'pdf', params: [] });
    assert.deepEqual(parsed(' text/plain ; Charset="utf-8"; format=flowed; charset=latin1;'), {
      type: 'text',
      subtype: 'plain',
      params: [
        ['charset', 'utf-8'],
        ['format', 'flowed'],
      ],
    });
    assert.deepEqual(parsed('application/pdf; name="a \\"b\\"; c.pdf"').params, [['name', 'a "b"; c.pdf']]);
    for (const bad of ['pdf', 'application/', '/pdf', 'application/pdf x', 'application/pdf; name', 'application/pdf; name="open', 'application/pdf; =x', 'a b/c']) {
      assert.equal(typeof parseContentType(bad), 'string', bad);
    }
  });

  it('knows the composite types (RFC 2046 5)', () => {
    for (const v of ['multipart/mixed; boundary=x', 'Multipart/Alternative', 'message/rfc822', 'MESSAGE/partial; id=1']) assert.ok(isComposite(parsed(v)), v);
    for (const v of ['application/pdf', 'text/plain', 'image/png', 'application/multipart-thing']) assert.ok(!isComposite(parsed(v)), v);
  });

  it('reads a long hostile value in linear time' + TIMED, LEFT_TO_PERF, () => {
    // 400 times the 255 characters an API ContentType may have: each worst case stays far within a second.
    const n = 100_000;
    for (const v of [`a/b;${' '.repeat(n)}`, `a/b; x="${'\\"'.repeat(n / 2)}`, `a/b; x="${'\\"'.repeat(n / 2)}"`, `a/b${'; x=y'.repeat(n / 5)}`, `a/b; x=${'y'.repeat(n)}`, `${'a'.repeat(n)}/`]) {
      const t = performance.now();
      parseContentType(v);
      assertWithin(performance.now() - t, 1000, v.slice(0, 20));
    }
  });

  it("writes the client's parameters once and mailroom's file name in place of the client's", async () => {
    const raw = composeMime(message('application/pdf; name="evil.exe"; NAME*=utf-8\'\'x.exe; version=1.7; Version=2')).toString('utf8');
    const field = attachmentField(raw);
    assert.equal(field, 'application/pdf; version=1.7; name="report.pdf"');
    const p = await PostalMime.parse(raw);
    assert.equal(p.attachments[0]!.filename, 'report.pdf');
    assert.equal(p.attachments[0]!.mimeType, 'application/pdf');
  });

  it('writes a composite or unreadable type stored before the check as application/octet-stream', () => {
    for (const ct of ['multipart/mixed; boundary="zzz"', 'message/rfc822', 'not a type']) {
      assert.equal(attachmentField(composeMime(message(ct)).toString('utf8')), 'application/octet-stream; name="report.pdf"', ct);
    }
  });
});
