// tier: unit
// The service's own mail keeps its links whole (system-compose.ts): 7bit lines up to the RFC 5322 limit
// instead of 76-character quoted-printable ones, an ASCII HTML part, and a fallback when 7bit cannot be.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { composeSystemMime } from '../../../src/domain/delivery/system-compose.js';

const LINK = `https://mailroom.example.test/senders/confirm/${'A'.repeat(60)}.${'b'.repeat(43)}`;
const base = {
  messageIdHeader: '<1@bounces.example>',
  date: new Date(Date.UTC(2026, 10, 23, 12, 0, 0)),
  fromName: 'mailroom',
  from: 'mailroom@bounces.example',
  to: 'owner@example.org',
  subject: 'Confirm your sender signature',
  extraHeaders: [{ key: 'Auto-Submitted', value: 'auto-generated' }],
};

describe('system mail MIME', () => {
  it('sends ASCII text and HTML as 7bit, the link whole on its line and in its href', async () => {
    const raw = composeSystemMime({ ...base, text: `Open this link:\n${LINK}\n`, html: `<p><a href="${LINK}">Confirm</a></p>` }).toString();
    const lines = raw.split('\r\n');
    assert.ok(lines.includes(LINK));
    assert.ok(raw.includes(`href="${LINK}"`));
    assert.equal(raw.match(/Content-Transfer-Encoding: 7bit/g)?.length, 2);
    const parsed = await PostalMime.parse(raw);
    assert.equal(parsed.subject, base.subject);
    assert.equal(parsed.headers.find((h) => h.key === 'auto-submitted')?.value, 'auto-generated');
    assert.ok(parsed.text?.includes(LINK));
  });

  it('turns non-ASCII HTML into character references, so the HTML part stays 7bit; the text part goes quoted-printable', async () => {
    const raw = composeSystemMime({ ...base, text: `Jürgen, open:\n${LINK}`, html: `<p>Jürgen 👋</p><a href="${LINK}">Confirm</a>` }).toString();
    assert.ok(raw.includes('<p>J&#252;rgen &#128075;</p>'), 'code points, not UTF-16 halves');
    assert.ok(raw.includes(`href="${LINK}"`));
    assert.match(raw, /text\/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable/);
    assert.match(raw, /text\/html; charset=utf-8\r\nContent-Transfer-Encoding: 7bit/);
    const parsed = await PostalMime.parse(raw);
    assert.ok(parsed.text?.includes(LINK), 'whole after decoding');
    assert.ok(parsed.text?.startsWith('Jürgen'));
  });

  it('falls back to quoted-printable for a line over the limit, so no line on the wire exceeds 998 octets', async () => {
    const long = 'x'.repeat(1200);
    const raw = composeSystemMime({ ...base, text: long, html: null }).toString();
    assert.ok(raw.split('\r\n').every((l) => l.length <= 998));
    assert.equal((await PostalMime.parse(raw)).text?.trim(), long);
  });
});
