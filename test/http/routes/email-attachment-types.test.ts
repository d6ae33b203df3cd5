// Attachment media types (issue 27, "MIME that mailroom itself writes"): a composite ContentType (multipart,
// message) is refused at accept time, since mailroom sends attachments in base64 and RFC 2045 6.4 forbids it
// for them; a client's parameters reach the delivered part once, its `name` replaced by mailroom's. Over
// SMTP submission a forwarded message (message/rfc822) travels as a file.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FROM, startSubmissionRig, type SubmissionRig } from '../../smtp-listeners/helpers.js';

const PDF = Buffer.from('%PDF-1.4 fake').toString('base64');

/** The Content-Type field of the delivered part whose Content-Disposition names `file`, unfolded. */
function partType(raw: string, file: string): string {
  const part = raw.split(/\r\n--/).find((p) => p.includes(`filename="${file}"`));
  assert.ok(part, `a part named ${file}`);
  return /^Content-Type: (.*(?:\r\n[ \t].*)*)/m.exec(part)![1]!.replace(/\r\n[ \t]/g, ' ');
}

describe('attachment media types', () => {
  let r: SubmissionRig;
  before(async () => {
    r = await startSubmissionRig();
  });
  after(async () => {
    await r.close();
  });
  const send = (Attachments: unknown[], To = 'reader@dest.example') =>
    r.s.request('POST', '/email', { body: { From: FROM, To, Subject: 'Files', TextBody: 'attached', Attachments } });

  it('refuses composite types with the attachment error, saying why', async () => {
    for (const ContentType of ['multipart/mixed; boundary="=_x"', 'Multipart/Alternative', 'message/rfc822', 'message/partial; id="a"; number=1']) {
      const res = await send([{ Name: 'part.txt', Content: PDF, ContentType }]);
      assert.equal(res.status, 422, ContentType);
      assert.equal(res.body.ErrorCode, 411, ContentType);
      assert.match(res.body.Message, /composite type .*RFC 2045 6\.4/, ContentType);
    }
    const bad = await send([{ Name: 'a.pdf', Content: PDF, ContentType: 'application/pdf; name' }]);
    assert.equal(bad.status, 422);
    assert.equal(bad.body.ErrorCode, 300);
    assert.match(bad.body.Message, /Attachments\[0\]\.ContentType' has a malformed parameter/);
    await r.s.drain();
    assert.equal(r.sink.messages.length, 0, 'nothing was accepted');
  });

  it('refuses them on every other way in: /email/batch, /email/withTemplate, /email/batchWithTemplates and /email/bulk', async () => {
    const Attachments = [{ Name: 'part.eml', Content: PDF, ContentType: 'message/rfc822' }];
    const t = await r.s.request('POST', '/templates', { body: { Name: 'Files', Alias: 'files', Subject: 'Files', TextBody: 'attached' } });
    assert.equal(t.status, 200, t.text);
    const batch = await r.s.request('POST', '/email/batch', { body: [{ From: FROM, To: 'b@dest.example', Subject: 'x', TextBody: 'x', Attachments }] });
    assert.equal(batch.status, 200, batch.text);
    assert.equal(batch.body[0].ErrorCode, 411, batch.text);
    assert.match(batch.body[0].Message, /composite type message\/rfc822/);
    const one = await r.s.request('POST', '/email/withTemplate', { body: { From: FROM, To: 'b@dest.example', TemplateAlias: 'files', TemplateModel: {}, Attachments } });
    assert.equal(one.status, 422, one.text);
    assert.equal(one.body.ErrorCode, 411);
    const many = await r.s.request('POST', '/email/batchWithTemplates', { body: { Messages: [{ From: FROM, To: 'b@dest.example', TemplateAlias: 'files', TemplateModel: {}, Attachments }] } });
    assert.equal(many.status, 200, many.text);
    assert.equal(many.body[0].ErrorCode, 411, many.text);
    const bulk = await r.s.request('POST', '/email/bulk', {
      body: { From: FROM, Subject: 'x', TextBody: 'x', Attachments: [{ Name: 'p', Content: PDF, ContentType: 'multipart/mixed; boundary=x' }], Messages: [{ To: 'b@dest.example' }] },
    });
    assert.equal(bulk.status, 422, bulk.text);
    assert.equal(bulk.body.ErrorCode, 411);
    assert.match(bulk.body.Message, /composite type multipart\/mixed/);
    await r.s.drain();
    assert.equal(r.sink.messages.length, 0, 'nothing was accepted');
  });

  it("delivers each parameter once, with mailroom's file name", async () => {
    const res = await send([{ Name: 'report.pdf', Content: PDF, ContentType: 'application/pdf; name="evil.exe"; Name*=utf-8\'\'evil.exe; version="1.7"' }], 'params@dest.example');
    assert.equal(res.status, 200, res.text);
    await r.s.drain();
    const got = r.sink.messages.find((m) => m.to.includes('params@dest.example'));
    assert.ok(got);
    assert.equal(partType(got.raw, 'report.pdf'), 'application/pdf; version=1.7; name="report.pdf"');
  });

  it('sends a forwarded message submitted over SMTP as a file, not a base64 message/rfc822 part', async () => {
    const forwarded = 'From: a@x.example\r\nTo: b@y.example\r\nSubject: original\r\n\r\nThe original text.\r\n';
    const info = await r.transport().sendMail({
      from: FROM,
      to: 'fwd@dest.example',
      subject: 'Fwd: original',
      text: 'see the forwarded message',
      attachments: [{ filename: 'original.eml', content: forwarded, contentType: 'message/rfc822', contentDisposition: 'attachment' }],
    });
    assert.match(info.response, /^250 /);
    await r.s.drain();
    const got = r.sink.messages.find((m) => m.to.includes('fwd@dest.example'));
    assert.ok(got);
    assert.equal(partType(got.raw, 'original.eml'), 'application/octet-stream; name="original.eml"');
    assert.doesNotMatch(got.raw, /message\/rfc822/i);
  });
});
