// tier: unit
// The DKIM signer (src/infra/dkim/sign.ts): RFC 6376's own canonicalization example, and signatures that an
// independent verifier (mailauth) accepts against the public key, over messages with folded, repeated and
// white-space-heavy header fields and bodies with trailing white space and empty lines.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { relaxedBody, relaxedHeader, splitMessage } from '../../../src/infra/dkim/canonicalize.js';
import { dkimSign } from '../../../src/infra/dkim/sign.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
const key = { domainName: 'example.com', keySelector: 'sel1', privateKey: pem };

async function verify(raw: Buffer) {
  const res = await dkimVerify(raw, {
    resolver: async (name: string, rr: string) => {
      assert.equal(`${name}/${rr}`, 'sel1._domainkey.example.com/TXT');
      return [[record]];
    },
  });
  return res.results[0];
}

describe('DKIM signer', () => {
  it('canonicalizes as in RFC 6376 3.4.6', () => {
    const { fields, body } = splitMessage('A: X \r\nB : Y\t\r\n\tZ  \r\n\r\n C \r\nD \t E\r\n\r\n\r\n');
    assert.deepEqual(fields.map((f) => relaxedHeader(f.raw)), ['a:X', 'b:Y Z']);
    assert.equal(relaxedBody(body), ' C\r\nD E\r\n');
    assert.equal(relaxedBody(''), '');
    assert.equal(relaxedBody('\r\n\r\n'), '');
    assert.equal(relaxedBody('no final line break  '), 'no final line break\r\n');
  });

  it('signs messages that mailauth verifies, with the signed fields listed in order (repeated ones taken bottom-up)', async () => {
    const raw = Buffer.from(
      [
        'From: "Sender, Inc." <sender@example.com>',
        'To: a@dest.example,\r\n  b@dest.example',
        'Subject:   spaced    out\t subject  ',
        'Received: not signed',
        'List-Unsubscribe: <https://x.example/u/1>',
        'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
        'To: second@dest.example',
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'Body line with trailing space   ',
        '  indented\t\ttabs',
        '',
        '',
        '',
      ].join('\r\n'),
    );
    const signed = dkimSign(raw, key);
    assert.ok(signed.subarray(signed.length - raw.length).equals(raw), 'the message itself is unchanged');
    const field = signed.subarray(0, signed.length - raw.length).toString();
    assert.match(field, /^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=example\.com;/);
    for (const line of field.split('\r\n')) assert.ok(line.length <= 78, line);
    const h = /\sh=([^;]+);/.exec(field)![1].replace(/\s+/g, '');
    // From, Subject, To, Date and Message-ID once more than present (oversigned, RFC 6376 8.15).
    assert.equal(h, 'From:To:Subject:List-Unsubscribe:List-Unsubscribe-Post:To:MIME-Version:Content-Type:From:Subject:To:Date:Message-ID');
    const r = await verify(signed);
    assert.equal(r.status.result, 'pass', JSON.stringify(r.status));
    // A relay that adds a second From, Subject or Date (absent before) breaks the signature.
    const at = signed.indexOf('\r\nFrom:') + 2;
    for (const extra of ['From: attacker@evil.example\r\n', 'Subject: Urgent\r\n', 'Date: Mon, 1 Jan 2024 00:00:00 +0000\r\n']) {
      const forged = Buffer.concat([signed.subarray(0, at), Buffer.from(extra), signed.subarray(at)]);
      assert.equal((await verify(forged)).status.result, 'fail', extra);
    }
    assert.equal(r.signingDomain, 'example.com');

    // Any change to a signed field or the body breaks it.
    const tampered = Buffer.from(signed.toString().replace('spaced', 'spiced'));
    assert.equal((await verify(tampered)).status.result, 'fail');
    const tamperedBody = Buffer.from(signed.toString().replace('indented', 'Indented'));
    assert.notEqual((await verify(tamperedBody)).status.result, 'pass');
  });

  it('signs a message without a body, and white space changes in transit do not break a relaxed signature', async () => {
    const signed = dkimSign(Buffer.from('From: a@example.com\r\nSubject: empty\r\n\r\n'), key);
    assert.equal((await verify(signed)).status.result, 'pass');
    const body = dkimSign(Buffer.from('From: a@example.com\r\nSubject: x\r\n\r\nline one\r\nline  two\r\n'), key);
    const reflowed = Buffer.from(body.toString().replace('line  two\r\n', 'line two   \r\n\r\n'));
    assert.equal((await verify(reflowed)).status.result, 'pass');
  });
});
