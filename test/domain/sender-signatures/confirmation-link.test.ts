// A confirmation link a person can click and copy: captured at an SMTP sink, the raw source holds the whole
// link on one line (no quoted-printable soft break inside it, RFC 2045 6.7), and following it confirms.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { startService, type TestService } from '../../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';

const PUBLIC = 'https://mailroom.example.test';
const LINK = new RegExp(`${PUBLIC.replace(/\./g, '\\.')}/senders/confirm/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+`, 'g');

describe('Confirmation links arrive unbroken', () => {
  let s: TestService;
  let sink: SmtpSink;
  const A = (body?: unknown) => ({ accountToken: s.accountToken, body });

  before(async () => {
    sink = await startSmtpSink();
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_PUBLIC_URL: PUBLIC } });
  });
  after(async () => {
    await s.close();
    await sink.close();
  });

  /** The raw source of the last mail to `to`, its lines, and the decoded parts. */
  const captured = async (to: string) => {
    await s.drain();
    const mail = sink.messages.filter((m) => m.to.includes(to)).at(-1);
    assert.ok(mail, `a confirmation email reached ${to}`);
    const lines = mail.raw.split('\r\n');
    assert.ok(
      lines.every((l) => Buffer.byteLength(l) <= 998),
      'every line within the 998 octets of RFC 5322 2.1.1',
    );
    return { raw: mail.raw, lines, parsed: await PostalMime.parse(mail.raw) };
  };

  /** Follows a link as a browser would (re-based onto the test listener): the page it shows, then its button
   * (a POST to the same address; the GET alone confirms nothing), and reads the signature back. */
  const follow = async (link: string, id: number) => {
    const url = s.url + link.slice(PUBLIC.length);
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<form method="post">/);
    assert.equal((await s.request('GET', `/senders/${id}`, A())).body.Confirmed, false);
    const done = await fetch(url, { method: 'POST' });
    assert.equal(done.status, 200);
    assert.match(await done.text(), /is now confirmed/);
    assert.equal((await s.request('GET', `/senders/${id}`, A())).body.Confirmed, true);
  };

  it('ASCII mail: the link stands whole on its own line in the text part and in the href', async () => {
    const sig = (await s.request('POST', '/senders', A({ FromEmail: 'ascii@links.test', Name: 'Ascii Owner' }))).body;
    const { raw, lines, parsed } = await captured('ascii@links.test');
    const link = [...(parsed.text ?? '').matchAll(LINK)].map((m) => m[0])[0];
    assert.ok(link, 'the text part carries the link');
    assert.ok(link.length > 76, `the link (${link.length} characters) is longer than a quoted-printable line`);
    assert.ok(lines.includes(link), 'the raw source has the link alone on one line, exactly as the reader sees it');
    assert.ok(raw.includes(`href="${link}"`), 'the HTML part links to it unbroken');
    assert.doesNotMatch(raw, /Content-Transfer-Encoding: quoted-printable/, 'nothing is soft-broken');
    assert.equal(parsed.html?.includes(`href="${link}"`), true);
    await follow(link, sig.ID);
  });

  it('non-ASCII name and note: the decoded text link is whole, and the raw source has it unbroken in the href', async () => {
    const note = 'Merci, Jürgen & Zoë: подтвердите, пожалуйста';
    const sig = (await s.request('POST', '/senders', A({ FromEmail: 'intl@links.test', Name: 'Jürgen Grüß', ConfirmationPersonalNote: note })))
      .body;
    const { raw, parsed } = await captured('intl@links.test');
    const link = [...(parsed.text ?? '').matchAll(LINK)].map((m) => m[0])[0];
    assert.ok(link, 'the decoded text part carries the whole link');
    assert.match(parsed.text ?? '', new RegExp(note.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'the note survives in the text part');
    assert.ok(raw.includes(`href="${link}"`), 'the raw source holds the link whole in the HTML part');
    assert.ok(parsed.html?.includes('Merci, J&#252;rgen') || parsed.html?.includes('Merci, Jürgen'), 'the HTML part keeps the note');
    await follow(link, sig.ID);
  });
});
