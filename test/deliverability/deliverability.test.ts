// tier: compat
// The deliverability tier: a fixed set of messages like a new user's (text, HTML with links, an attachment
// and an inline image, German/Japanese/emoji, a 200-character subject, a 5,000-character line, a broadcast),
// sent through the API with tracking off and on, from a domain with a verified DKIM key and a verified custom
// Return-Path (the aligned set-up; the console and `mailroom status` show what an unverified one costs).
// Every delivered message is checked with tools mailroom did not write:
//   - Python's email.policy.strict reports no defects (check-mail.py);
//   - dkimpy (check-mail.py) and opendkim-testmsg verify every signature, and a copy with a body byte changed
//     fails;
//   - no header line is over 78 characters where the field has a place to fold (a single unbreakable token,
//     the List-Unsubscribe URL, stays whole, as nodemailer leaves it);
//   - SpamAssassin (`spamassassin -t -L`, Debian's rules) fires no rule on mailroom's copy that it does not
//     fire on nodemailer's build of the same content, DKIM-signed with the same key. One exception, with open
//     tracking on an HTML message: the open pixel is an image, and on a short HTML part SpamAssassin's
//     HTML_IMAGE_ONLY_* ("images with few words") counts it; that is the price of open tracking itself,
//     not of how mailroom writes the mail (docs/reference/delivery-practice.md).
// opendkim-testmsg and SpamAssassin's Mail::DKIM find the key through the system resolver: they run in a
// mount namespace whose /etc/resolv.conf names a loopback DNS server of this test on port 53.
// Needs python3-dkim, opendkim-tools and spamassassin (scripts/setup.sh); skipped, loudly, without them.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { addConfirmedSender, addVerifiedDomain } from '../helpers/senders.js';
import { startService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

const PY = '/usr/bin/python3';
const have = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const tools = have(PY, ['-c', 'import dkim']) && have('sh', ['-c', 'command -v opendkim-testmsg && command -v spamassassin && command -v unshare']);
if (!tools) console.error('deliverability tier SKIPPED: needs python3-dkim, opendkim-tools, spamassassin (run scripts/setup.sh)');

const FROM = 'news@example.com';
const RESOLV_AT = '127.36.0.1';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

interface Content {
  name: string;
  subject: string;
  text?: string;
  html?: string;
  fromName?: string;
  stream?: string;
  attachments?: Array<{ name: string; content: Buffer; type: string; cid?: string }>;
}

const HTML = (inner: string) => `<!doctype html><html><head><meta charset="utf-8"><title>x</title></head><body>${inner}</body></html>`;
const CONTENTS: Content[] = [
  { name: 'text', subject: 'Your order has shipped', text: 'Hello Jane,\n\nYour order 1234 has shipped.\nTrack it at https://shop.example.com/orders/1234\n\nThanks,\nThe Shop' },
  {
    name: 'html',
    subject: 'Your account',
    text: 'Sign in at https://shop.example.com/account',
    html: HTML('<p>Hello Jane,</p><p>Sign in at <a href="https://shop.example.com/account">https://shop.example.com/account</a> or <a href="https://shop.example.com/help">get help</a>.</p><p>The Shop</p>'),
  },
  {
    name: 'attachments',
    subject: 'Invoice 1234',
    text: 'Your invoice is attached.',
    html: HTML('<p><img src="cid:logo" alt="Shop"></p><p>Your invoice is attached. Questions? <a href="https://shop.example.com/help">Help</a></p>'),
    attachments: [
      { name: 'invoice-1234.pdf', content: PDF, type: 'application/pdf' },
      { name: 'logo.png', content: PNG, type: 'image/png', cid: 'logo' },
    ],
  },
  {
    name: 'international',
    subject: 'Grüße aus München – 日本語の件名 🎉',
    fromName: 'Jürgen Müller – 山田商店',
    text: 'Schöne Grüße! こんにちは。 🎉 https://shop.example.com/de',
    html: HTML('<p>Schöne Grüße! こんにちは。 🎉 <a href="https://shop.example.com/de">Zum Shop</a></p>'),
  },
  { name: 'long-subject', subject: `Your weekly summary: ${'orders, returns and reviews '.repeat(7)}`.slice(0, 200), text: 'Summary inside.' },
  { name: 'long-line', subject: 'Report', text: `Data: ${'value,'.repeat(833)}`, html: HTML(`<p>${'value '.repeat(833)}</p>`) },
  { name: 'broadcast', subject: 'News for November', stream: 'broadcast', text: 'News at https://shop.example.com/news', html: HTML('<p>Read <a href="https://shop.example.com/news">the news</a>.</p>') },
];

function run(cmd: string, args: string[], input: Buffer | string | null): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? -1, out, err }));
    p.stdin.end(input ?? undefined);
  });
}

/** Runs a command with /etc/resolv.conf naming the test's DNS server (a private mount namespace). */
const withResolver = (resolv: string, cmd: string[], input: Buffer) =>
  run('unshare', ['-m', 'sh', '-c', 'mount --bind "$0" /etc/resolv.conf && exec "$@"', resolv, ...cmd], input);

/** The rules SpamAssassin fired, from its X-Spam-Status header. */
async function saRules(resolv: string, raw: Buffer): Promise<string[]> {
  const r = await withResolver(resolv, ['spamassassin', '-t', '-L'], raw);
  const status = /^X-Spam-Status: [^\n]*(?:\n[ \t][^\n]*)*/m.exec(r.out)?.[0].replace(/\s+/g, ' ') ?? '';
  // The list is folded after its commas: everything from tests= up to the next tag, spaces removed.
  const tests = (/tests=(.*?)(?: autolearn=| version=|$)/.exec(status)?.[1] ?? '').replace(/\s+/g, '');
  assert.ok(status, `no X-Spam-Status: ${r.err.slice(0, 500)}`);
  return tests.split(',').filter((t) => t && t !== 'none');
}

/** Header lines over 78 that had a place to fold (white space after some text). */
function overlongFoldable(raw: Buffer): string[] {
  const head = raw.toString('latin1').split('\r\n\r\n', 1)[0];
  return head.split('\r\n').filter((l) => l.length > 78 && /\S\s+\S/.test(l.replace(/^[\w-]+:\s*/, '').trim()));
}

describe('deliverability: strict parsing, four DKIM verdicts, header lengths, SpamAssassin against nodemailer', { skip: !tools }, () => {
  let s: TestService;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  let resolverDns: TestDnsServer;
  let dir: string;
  let resolv: string;
  let key: Awaited<ReturnType<typeof addVerifiedDomain>>;
  const record = () => `v=DKIM1; k=rsa; p=${key.publicKeyBase64}`;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mailroom-deliverability-'));
    sink = await startSmtpSink();
    dns = await startDnsServer();
    resolverDns = await startDnsServer({ address: RESOLV_AT, port: 53 });
    resolv = join(dir, 'resolv.conf');
    writeFileSync(resolv, `nameserver ${RESOLV_AT}\noptions timeout:1 attempts:1\n`);
    s = await startService({ env: { MAILROOM_SMTP_RELAY: `smtp://127.0.0.1:${sink.port}`, MAILROOM_DNS_SERVERS: dns.address } });
    await addConfirmedSender(s, FROM);
    key = await addVerifiedDomain(s, 'example.com', 'mr1');
    await s.ctx.db.updateTable('domains').set({ return_path_domain: 'pm-bounces.example.com', return_path_verified: 1 }).where('name', '=', 'example.com').execute();
    for (const d of [dns, resolverDns]) d.set('mr1._domainkey.example.com', [{ type: 'TXT', data: record() }]);
  });
  after(async () => {
    await s?.close();
    await sink?.close();
    await dns?.close();
    await resolverDns?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function viaMailroom(c: Content, tracking: boolean): Promise<{ raw: Buffer; envelope: string }> {
    const r = await s.request('POST', '/email', {
      body: {
        From: c.fromName ? `"${c.fromName}" <${FROM}>` : FROM,
        To: 'Jane Doe <jane@dest.example>',
        Subject: c.subject,
        TextBody: c.text,
        HtmlBody: c.html,
        MessageStream: c.stream ?? 'outbound',
        TrackOpens: tracking,
        TrackLinks: tracking ? 'HtmlAndText' : 'None',
        Attachments: (c.attachments ?? []).map((a) => ({ Name: a.name, Content: a.content.toString('base64'), ContentType: a.type, ContentID: a.cid ? `cid:${a.cid}` : undefined })),
      },
    });
    assert.equal(r.status, 200, r.text);
    const n = sink.messages.length;
    await s.drain();
    assert.equal(sink.messages.length, n + 1, c.name);
    const m = sink.messages[n];
    // What the receiving MTA adds: the envelope sender as Return-Path.
    return { raw: Buffer.from(`Return-Path: <${m.from}>\r\n${m.raw}`, 'latin1'), envelope: m.from };
  }

  async function viaNodemailer(c: Content): Promise<Buffer> {
    const t = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows', dkim: { domainName: 'example.com', keySelector: 'mr1', privateKey: key.privateKeyPem } });
    const info = await t.sendMail({
      from: { name: c.fromName ?? '', address: FROM },
      to: { name: 'Jane Doe', address: 'jane@dest.example' },
      subject: c.subject,
      text: c.text,
      html: c.html,
      attachments: (c.attachments ?? []).map((a) => ({ filename: a.name, content: a.content, contentType: a.type, cid: a.cid })),
    });
    return Buffer.concat([Buffer.from(`Return-Path: <${FROM}>\r\n`), info.message as Buffer]);
  }

  it('passes every check on every message, tracking off and on, and scores no rule nodemailer does not', async () => {
    const files: string[] = [];
    const rows: Array<{ label: string; mailroom: string[]; nodemailer: string[] }> = [];
    for (const tracking of [false, true]) {
      for (const c of CONTENTS) {
        const label = `${c.name}${tracking ? '+tracking' : ''}`;
        const { raw } = await viaMailroom(c, tracking);
        const file = join(dir, `${label}.eml`);
        writeFileSync(file, raw);
        files.push(file);
        assert.deepEqual(overlongFoldable(raw), [], `${label}: header lines over 78`);
        const od = await withResolver(resolv, ['opendkim-testmsg'], raw);
        assert.equal(od.code, 0, `${label}: opendkim-testmsg: ${od.out}${od.err}`);
        const tampered = Buffer.concat([raw.subarray(0, raw.length - 3), Buffer.from('X\r\n')]);
        assert.notEqual((await withResolver(resolv, ['opendkim-testmsg'], tampered)).code, 0, `${label}: opendkim-testmsg accepted a tampered copy`);
        const [mine, peer] = await Promise.all([saRules(resolv, raw), viaNodemailer(c).then((p) => saRules(resolv, p))]);
        rows.push({ label, mailroom: mine, nodemailer: peer });
      }
    }
    const spec = join(dir, 'spec.json');
    writeFileSync(spec, JSON.stringify({ records: { 'mr1._domainkey.example.com': record() }, files }));
    const py = await run(PY, [new URL('./check-mail.py', import.meta.url).pathname, spec], null);
    assert.equal(py.code, 0, py.err);
    for (const line of py.out.trim().split('\n')) {
      const r = JSON.parse(line) as { file: string; defects: string[]; dkim: boolean; tampered: boolean };
      assert.deepEqual(r.defects, [], `${r.file}: strict parser defects`);
      assert.equal(r.dkim, true, `${r.file}: dkimpy`);
      assert.equal(r.tampered, false, `${r.file}: dkimpy accepted a tampered copy`);
    }
    for (const r of rows) console.log(`# ${r.label.padEnd(26)} mailroom: ${r.mailroom.join(',')}\n# ${''.padEnd(26)} nodemailer: ${r.nodemailer.join(',')}`);
    for (const r of rows) {
      const pixel = (t: string) => r.label.endsWith('+tracking') && /^HTML_IMAGE_ONLY_\d+$/.test(t);
      const extra = r.mailroom.filter((t) => !r.nodemailer.includes(t) && !pixel(t));
      assert.deepEqual(extra, [], `${r.label}: rules on mailroom's copy only`);
    }
  });
});
