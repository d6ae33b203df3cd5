// What one unauthenticated message could do to the inbound listener (issue 27): fifty addresses of one server
// made fifty copies and posts, a message past the limit cost its whole size, forged verdict headers reached
// the application beside mailroom's, unparseable MIME was answered 451 (retried for days), and postmaster was
// refused. Real SMTP over loopback, the real application hook, both databases.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATOR_COMMANDS } from '../../../src/cli-operator.js';
import { createLogger } from '../../../src/infra/logger.js';
import { dialogue, sendInbound, startInbound, type InboundSetup } from './inbound-helpers.js';

const LIMIT = 1024 * 1024;

describe('inbound mail from a hostile sender', () => {
  let t: InboundSetup;
  const logs: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  before(async () => {
    const logger = createLogger('info', { write: (line: string) => void logs.push(JSON.parse(line)) });
    t = await startInbound({ MAILROOM_INBOUND_MAX_MESSAGE_BYTES: String(LIMIT) }, logger);
  });
  after(() => t.close());

  const posted = (subject: string) => t.app.requests.filter((r) => r.json?.Subject === subject);
  const stored = async (subject: string) => (await t.s.request('GET', `/messages/inbound?count=50&offset=0&subject=${encodeURIComponent(subject)}`)).body;
  const plus = (tag: string) => t.address.replace('@', `+${tag}@`);

  it('stores and posts a message to 50 addresses of one server once, naming them in ToFull, BccFull and OriginalRecipient', async () => {
    const other = await t.s.request('POST', '/servers', { accountToken: t.s.accountToken, body: { Name: 'Second server', InboundHookUrl: `${t.app.url}/second` } });
    assert.equal(other.status, 200, other.text);
    const otherAddress: string = other.body.InboundAddress;
    const envelope = [...Array.from({ length: 49 }, (_, i) => plus(`tag${i}`)), otherAddress];
    const attachment = Buffer.alloc(600 * 1024, 'attachment bytes ');
    const raw = [
      'From: "Jane Customer" <jane@customer.example>',
      `To: ${plus('tag0')}, ${plus('tag1')}`,
      'Subject: Fifty addresses',
      'Message-ID: <fifty@customer.example>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain',
      '',
      'See the attachment.',
      '--b1',
      'Content-Type: application/octet-stream; name="big.bin"',
      'Content-Disposition: attachment; filename="big.bin"',
      'Content-Transfer-Encoding: base64',
      '',
      ...(attachment.toString('base64').match(/.{1,76}/g) ?? []),
      '--b1--',
      '',
    ].join('\r\n');
    const answer = await sendInbound(t.s, { raw }, envelope);
    assert.ok(answer.ok, answer.response);
    await t.s.drain();
    const mine = posted('Fifty addresses').filter((r) => r.path === '/inbound');
    assert.equal(mine.length, 1, 'one post to the server, not one per address');
    const j = mine[0].json;
    assert.equal(j.OriginalRecipient, plus('tag0'), 'the first envelope recipient of the server');
    assert.equal(j.MailboxHash, 'tag0');
    assert.deepEqual(
      j.ToFull.map((r: any) => r.MailboxHash),
      ['tag0', 'tag1'],
    );
    // The other 47 addresses of this server were blind copies: listed in Bcc, the other server's address not.
    assert.equal(j.BccFull.length, 47);
    assert.equal(j.BccFull[0].Email, plus('tag2'));
    assert.equal(j.BccFull[0].MailboxHash, 'tag2');
    assert.ok(!JSON.stringify(j.BccFull).includes(otherAddress), 'another server\'s address is not shown');
    assert.equal(Buffer.from(j.Attachments[0].Content, 'base64').length, attachment.length, 'a message spooled to disk arrives whole');
    assert.equal((await stored('Fifty addresses')).TotalCount, 1);
    const theirs = posted('Fifty addresses').filter((r) => r.path === '/second');
    assert.equal(theirs.length, 1, 'the second server gets its own copy');
    assert.equal(theirs[0].json.OriginalRecipient, otherAddress);
    assert.equal(theirs[0].json.BccFull.length, 1);
    assert.equal((await t.s.request('GET', '/messages/inbound?count=50&offset=0&recipient=' + encodeURIComponent(plus('tag30')))).body.TotalCount, 1, 'found by any of its addresses');

    // A sender that splits the same message over transactions (RFC 5321 4.5.3.1.8) makes no second copy.
    const again = await sendInbound(t.s, { raw }, [plus('tag49')]);
    assert.ok(again.ok, again.response);
    await t.s.drain();
    assert.equal(posted('Fifty addresses').filter((r) => r.path === '/inbound').length, 1);
    assert.equal((await stored('Fifty addresses')).TotalCount, 1);
  });

  it('advertises SIZE and refuses a message over MAILROOM_INBOUND_MAX_MESSAGE_BYTES with 552 5.3.4 naming the limit', async () => {
    const ehlo = await dialogue(t.s, ['EHLO probe.example']);
    assert.match(ehlo[1], new RegExp(`250[- ]SIZE ${LIMIT}\\r?$`, 'm'));
    const mail = await dialogue(t.s, ['EHLO probe.example', `MAIL FROM:<jane@customer.example> SIZE=${LIMIT + 1}`]);
    assert.match(mail[2], /^552 /);
    const big = await sendInbound(t.s, { to: t.address, subject: 'Too big', text: 'x'.repeat(LIMIT + 10) });
    assert.equal(big.ok, false);
    assert.equal(big.code, 552);
    assert.match(big.response, new RegExp(`^552 5\\.3\\.4 Message too big: \\d+ bytes, the limit is ${LIMIT} bytes`));
    assert.equal((await stored('Too big')).TotalCount, 0);
    const fits = await sendInbound(t.s, { to: t.address, subject: 'Just fits', text: `${'y'.repeat(70)}\n`.repeat(Math.floor((LIMIT - 8192) / 72)) });
    assert.ok(fits.ok, fits.response);
  });

  it('removes Authentication-Results claiming mailroom\'s authserv-id and sender Received-SPF (RFC 8601 5)', async () => {
    const id = t.s.config.inboundDomain;
    const answer = await sendInbound(t.s, {
      to: t.address,
      subject: 'Forged verdicts',
      headers: [
        { key: 'Authentication-Results', value: `${id}; spf=pass smtp.mailfrom=ceo@bank.example; dkim=pass header.d=bank.example; dmarc=pass header.from=bank.example` },
        { key: 'Authentication-Results', value: ` (a comment) ${id.toUpperCase()} 1; dkim=pass` },
        { key: 'Authentication-Results', value: 'mx.forwarder.example; spf=softfail' },
        { key: 'Received-SPF', value: 'pass (forged) client-ip=192.0.2.1;' },
        { key: 'X-Spam-Status', value: 'No, score=-5.0' },
      ],
    });
    assert.ok(answer.ok, answer.response);
    await t.s.drain();
    const headers: Array<{ Name: string; Value: string }> = posted('Forged verdicts')[0].json.Headers;
    const results = headers.filter((h) => h.Name.toLowerCase() === 'authentication-results');
    const ours = results.filter((h) => h.Value.trim().toLowerCase().startsWith(id));
    assert.equal(ours.length, 1, `only mailroom's own under its name: ${JSON.stringify(results)}`);
    assert.equal(results[0], ours[0], 'mailroom\'s own comes first');
    assert.doesNotMatch(ours[0].Value, /dkim=pass/, 'the message carries no signature: mailroom says dkim=none');
    assert.ok(results.some((h) => h.Value.startsWith('mx.forwarder.example')), 'another authserv-id\'s results stay');
    const spf = headers.filter((h) => h.Name.toLowerCase() === 'received-spf');
    assert.equal(spf.length, 1);
    assert.doesNotMatch(spf[0].Value, /forged/);
    // Without MAILROOM_SPAMD mailroom scores nothing, so an upstream filter's spam headers are left alone.
    assert.equal(headers.find((h) => h.Name === 'X-Spam-Status')?.Value, 'No, score=-5.0');
  });

  it('answers MIME nested 1,000 deep and an over-long header section with a permanent 554 5.6.0, logged once at warn', async () => {
    let nested = '';
    for (let i = 0; i < 1000; i++) nested += `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n`;
    const raw = `From: jane@customer.example\r\nTo: ${t.address}\r\nSubject: Nested\r\nMIME-Version: 1.0\r\n${nested}Content-Type: text/plain\r\n\r\nhi\r\n`;
    const before = logs.length;
    const deep = await sendInbound(t.s, { raw }, t.address);
    assert.equal(deep.ok, false);
    assert.equal(deep.code, 554);
    assert.match(deep.response, /^554 5\.6\.0 The message could not be parsed as MIME: .*nesting depth/i);
    const lines = logs.slice(before).filter((l) => l.level >= 40);
    assert.equal(lines.length, 1, JSON.stringify(lines.map((l) => l.msg)));
    assert.equal(lines[0].level, 40, 'warn, not error');

    const filler = Array.from({ length: 6_000 }, (_, i) => `X-Filler-${i}: ${'f'.repeat(90)}\r\n`).join('');
    const long = await sendInbound(t.s, { raw: `From: jane@customer.example\r\nTo: ${t.address}\r\nSubject: Long header\r\n${filler}\r\nbody\r\n` }, t.address);
    assert.equal(long.ok, false);
    assert.equal(long.code, 554);
    assert.match(long.response, /^554 5\.6\.0 .*header size/i);
    assert.equal((await stored('Nested')).TotalCount + (await stored('Long header')).TotalCount, 0);
  });

  it('takes postmaster (bare, any case, at the inbound and return-path domains) and shows it to the operator', async () => {
    const body = 'From: admin@remote.example\r\nSubject: Your MX rejects our mail\r\n\r\nPlease have a look.\r\n.';
    const bare = await dialogue(t.s, ['EHLO remote.example', 'MAIL FROM:<admin@remote.example>', 'RCPT TO:<PostMaster>', `RCPT TO:<postmaster@${t.s.config.inboundDomain}>`, 'DATA', body]);
    assert.match(bare[3], /^250 /, bare[3]);
    assert.match(bare[4], /^250 /, bare[4]);
    assert.match(bare[6], /^250 2\.6\.0 Message received for postmaster as [0-9a-f-]{36}/, bare[6]);
    const rp = await dialogue(t.s, ['EHLO remote.example', 'MAIL FROM:<>', `RCPT TO:<POSTMASTER@${t.s.config.returnPathDomain}>`]);
    assert.match(rp[3], /^250 /, rp[3]);
    const someoneElse = await dialogue(t.s, ['EHLO remote.example', 'MAIL FROM:<>', 'RCPT TO:<postmaster@elsewhere.example>']);
    assert.match(someoneElse[3], /^550 /);

    const list = await OPERATOR_COMMANDS.postmaster(t.s.ctx, [], {});
    assert.match(list, /1 message/);
    assert.match(list, /admin@remote\.example/);
    assert.match(list, /Your MX rejects our mail/);
    const id = /\b([0-9a-f-]{36})\b/.exec(list)![1];
    const shown = await OPERATOR_COMMANDS.postmaster(t.s.ctx, ['show', id], {});
    assert.match(shown, /Please have a look\./);
    const status = await OPERATOR_COMMANDS.status(t.s.ctx, [], {});
    assert.match(status, /Postmaster: 1 message/);
  });
});
