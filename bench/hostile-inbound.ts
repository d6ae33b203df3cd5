// Issue 27's inbound probe, from outside: `mailroom serve` (src/cli.ts under tsx, a fresh SQLite file) is sent
// what a hostile stranger can send its inbound MX over real SMTP, while /healthz is polled every 20 ms and the
// process's RSS is read from /proc. Prints what each probe answered, the slowest /healthz during it, the
// application hook's posts and the RSS; exits non-zero when an expectation of issue 27 fails.
//
//   npx tsx bench/hostile-inbound.ts          (PROBE_CONCURRENT=40 for forty 9.8 MB messages at once)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDnsServer } from '../test/helpers/dns-server.js';
import { smtpDialogue } from '../test/helpers/raw-smtp.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'probe-server-token-000000000000001';
const LIMIT = 10 * 1024 * 1024;
const failures: string[] = [];
const expect = (ok: boolean, what: string) => {
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

// The application's inbound hook: counts posts and their bytes, keeps each post's JSON.
const posts: Array<{ bytes: number; json: any }> = [];
const hook = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    posts.push({ bytes: body.length, json: JSON.parse(body.toString('utf8')) });
    res.end('ok');
  });
});
await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/inbound`;
const dns = await startDnsServer();
dns.set('customer.example', [{ type: 'TXT', data: 'v=spf1 ip4:127.0.0.0/8 -all' }]);

const dir = mkdtempSync(join(tmpdir(), 'mailroom-probe-inbound-'));
const env = {
  MAILROOM_DATABASE_URL: join(dir, 'mailroom.db'),
  MAILROOM_SERVER_TOKEN: TOKEN,
  MAILROOM_ACCOUNT_TOKEN: 'probe-account-token-00000000000001',
  MAILROOM_SECRET_KEY: 'probe-secret-key-probe-secret-key-0123456789',
  MAILROOM_PORT: '0',
  MAILROOM_INBOUND_SMTP_PORT: '0',
  MAILROOM_SUBMISSION_PORT: 'off',
  MAILROOM_WEBHOOK_ALLOW_PRIVATE: 'true',
  MAILROOM_DNS_SERVERS: dns.address,
  MAILROOM_LOG_LEVEL: 'info',
};
const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
const logs: any[] = [];
let partial = '';
child.stdout.on('data', (d: Buffer) => {
  const lines = (partial + d.toString()).split('\n');
  partial = lines.pop()!;
  for (const l of lines) if (l.startsWith('{')) logs.push(JSON.parse(l));
});
const deadline = Date.now() + 60_000;
const find = (msg: string) => logs.find((l) => l.msg === msg);
while (!find('mailroom listening') || !find('inbound SMTP listener started')) {
  if (child.exitCode !== null || Date.now() > deadline) throw new Error('mailroom serve did not start');
  await new Promise((r) => setTimeout(r, 50));
}
const url: string = find('mailroom listening').url;
const smtpPort: number = find('inbound SMTP listener started').port;
const headers = { 'content-type': 'application/json', accept: 'application/json', 'x-service-server-token': TOKEN };
const put = await (await fetch(`${url}/server`, { method: 'PUT', headers, body: JSON.stringify({ InboundHookUrl: hookUrl }) })).json();
const address: string = put.InboundAddress;
const inboundDomain = address.split('@')[1]!;
const plus = (tag: string) => address.replace('@', `+${tag}@`);

const rss = (key = 'VmRSS') => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
await new Promise((r) => setTimeout(r, 1000));
console.log(`mailroom serve (pid ${child.pid}) at ${url}, inbound SMTP on ${smtpPort}, idle RSS ${rss().toFixed(0)} MB`);

/** Runs `work` while /healthz is asked every 20 ms; answers its result, the slowest /healthz and the peak RSS. */
async function watched<T>(work: () => Promise<T>): Promise<{ result: T; slowest: number; peak: number }> {
  let done = false;
  let slowest = 0;
  let peak = rss();
  const poll = (async () => {
    while (!done) {
      const t = performance.now();
      const h = await fetch(`${url}/healthz`);
      await h.arrayBuffer();
      slowest = Math.max(slowest, performance.now() - t);
      peak = Math.max(peak, rss());
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const result = await work().finally(() => (done = true));
  await poll;
  return { result, slowest, peak };
}

/** One SMTP transaction; the replies after the greeting. */
async function smtp(mailFrom: string, rcpts: string[], data: string | null, mailParams = '', localAddress = '127.0.0.1'): Promise<string[]> {
  const commands = ['EHLO probe.customer.example', `MAIL FROM:<${mailFrom}>${mailParams}`, ...rcpts.map((r) => `RCPT TO:<${r}>`)];
  if (data !== null) {
    const dotted = data.replace(/\r\n\./g, '\r\n..');
    commands.push('DATA', `${dotted.endsWith('\r\n') ? dotted : `${dotted}\r\n`}.`);
  }
  return (await smtpDialogue(smtpPort, commands, { localAddress, timeoutMs: 120_000 })).slice(1);
}

const message = (subject: string, extra: string, body: string, to = address) =>
  `From: "Jane Customer" <jane@customer.example>\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}@customer.example>\r\nMIME-Version: 1.0\r\n${extra}\r\n${body}`;
const waitPosts = async (subject: string, n: number) => {
  const until = Date.now() + 60_000;
  while (posts.filter((p) => p.json.Subject === subject).length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return posts.filter((p) => p.json.Subject === subject);
};
const last = (a: string[]) => a[a.length - 1]!;

console.log('\n1. a megabyte of whitespace as text/plain');
{
  const w = await watched(() => smtp('jane@customer.example', [address], message('Whitespace', 'Content-Type: text/plain\r\n', `Hello${' '.repeat(1024 * 1024)}\r\n`)));
  console.log(`  ${last(w.result)}; slowest /healthz ${w.slowest.toFixed(0)} ms`);
  expect(/^250 /.test(last(w.result)), 'accepted');
  const p = await waitPosts('Whitespace', 1);
  expect(p.length === 1 && p[0]!.json.StrippedTextReply === 'Hello', 'posted once, StrippedTextReply "Hello"');
  expect(w.slowest < 1000, '/healthz kept answering within a second');
}

console.log('\n2. one 9.8 MB message to 50 +tag addresses of one server');
{
  const attachment = Buffer.alloc(Math.floor(9.8 * 1024 * 1024 * 0.74), 'attachment bytes ').toString('base64').replace(/.{76}/g, '$&\r\n');
  const raw = message('Fifty', 'Content-Type: multipart/mixed; boundary="b1"\r\n', `--b1\r\nContent-Type: text/plain\r\n\r\nSee the file.\r\n--b1\r\nContent-Type: application/octet-stream; name="big.bin"\r\nContent-Transfer-Encoding: base64\r\n\r\n${attachment}\r\n--b1--\r\n`, `${plus('a')}, ${plus('b')}`);
  const before = rss();
  const w = await watched(() => smtp('jane@customer.example', Array.from({ length: 50 }, (_, i) => plus(i === 0 ? 'a' : i === 1 ? 'b' : `t${i}`)), raw));
  const p = await waitPosts('Fifty', 1);
  await new Promise((r) => setTimeout(r, 1000));
  const again = posts.filter((q) => q.json.Subject === 'Fifty');
  console.log(`  ${(raw.length / 1024 / 1024).toFixed(1)} MB: ${last(w.result)}; slowest /healthz ${w.slowest.toFixed(0)} ms; RSS ${before.toFixed(0)} -> peak ${w.peak.toFixed(0)} MB`);
  expect(/^250 /.test(last(w.result)), 'accepted');
  expect(again.length === 1, `posted once (${again.length} posts, ${(again.reduce((n, q) => n + q.bytes, 0) / 1024 / 1024).toFixed(1)} MB)`);
  const j = p[0]?.json;
  expect(j?.OriginalRecipient === plus('a') && j?.ToFull?.length === 2 && j?.BccFull?.length === 48, `OriginalRecipient ${j?.OriginalRecipient}, ToFull ${j?.ToFull?.length}, BccFull ${j?.BccFull?.length}`);
  const stored = await (await fetch(`${url}/messages/inbound?count=50&offset=0&subject=Fifty`, { headers })).json();
  expect(stored.TotalCount === 1, `stored once (TotalCount ${stored.TotalCount})`);
  expect(w.peak - before < 300, `RSS rose by ${(w.peak - before).toFixed(0)} MB (was 2,700 MB)`);
  expect(w.slowest < 2000, '/healthz answered within 2 s');
}

console.log(`\n3. a message over the limit (${LIMIT} bytes)`);
{
  const before = rss();
  const w = await watched(() => smtp('jane@customer.example', [address], message('Too big', 'Content-Type: text/plain\r\n', `${'y'.repeat(998)}\r\n`.repeat(Math.ceil((LIMIT * 1.5) / 1000)))));
  console.log(`  ${last(w.result)}; RSS ${before.toFixed(0)} -> peak ${w.peak.toFixed(0)} MB`);
  expect(/^552 5\.3\.4 Message too big: \d+ bytes, the limit is 10485760 bytes/.test(last(w.result)), 'refused 552 5.3.4 naming the limit');
  const declared = await smtp('jane@customer.example', [], null, ` SIZE=${LIMIT + 1}`);
  console.log(`  MAIL FROM with SIZE=${LIMIT + 1}: ${last(declared)}`);
  expect(/^552 /.test(last(declared)), 'a declared SIZE over the limit is refused at MAIL FROM');
}

console.log('\n4. forged verdict headers');
{
  const forged = [
    `Authentication-Results: ${inboundDomain}; spf=pass smtp.mailfrom=ceo@bank.example; dkim=pass header.d=bank.example; dmarc=pass header.from=bank.example`,
    'Received-SPF: pass (forged) client-ip=192.0.2.1;',
    'X-Spam-Status: No, score=-5.0',
    'X-Spam-Flag: NO',
  ].join('\r\n');
  const r = await smtp('jane@customer.example', [address], message('Forged', `${forged}\r\nContent-Type: text/plain\r\n`, 'hi\r\n'));
  expect(/^250 /.test(last(r)), 'accepted');
  const h: Array<{ Name: string; Value: string }> = (await waitPosts('Forged', 1))[0]?.json.Headers ?? [];
  const ar = h.filter((x) => x.Name.toLowerCase() === 'authentication-results');
  for (const x of h.filter((x) => /^(authentication-results|received-spf|x-spam)/i.test(x.Name))) console.log(`    ${x.Name}: ${x.Value.slice(0, 110)}`);
  expect(ar.length === 1 && !/dkim=pass/.test(ar[0]!.Value), "one Authentication-Results under mailroom's authserv-id, its own (dkim=none)");
  expect(h.filter((x) => x.Name.toLowerCase() === 'received-spf').every((x) => !/forged/.test(x.Value)), 'the forged Received-SPF is gone');
}

console.log('\n5. unparseable MIME');
{
  let nested = '';
  for (let i = 0; i < 1000; i++) nested += `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n`;
  const errorsBefore = logs.filter((l) => l.level >= 50).length;
  for (let attempt = 0; attempt < 3; attempt++) {
    const r = await smtp('jane@customer.example', [address], `From: jane@customer.example\r\nTo: ${address}\r\nSubject: Nested\r\nMIME-Version: 1.0\r\n${nested}Content-Type: text/plain\r\n\r\nhi\r\n`);
    if (attempt === 0) console.log(`  1,000 deep: ${last(r)}`);
    expect(/^554 5\.6\.0 .*nesting/i.test(last(r)), `1,000 deep, try ${attempt + 1}: 554 5.6.0 with the reason`);
  }
  const filler = Array.from({ length: 6000 }, (_, i) => `X-Filler-${i}: ${'f'.repeat(90)}\r\n`).join('');
  const long = await smtp('jane@customer.example', [address], `From: jane@customer.example\r\nTo: ${address}\r\nSubject: Long header\r\n${filler}\r\nbody\r\n`);
  console.log(`  550 KB header section: ${last(long)}`);
  expect(/^554 5\.6\.0 .*header/i.test(last(long)), 'over-long header section: 554 5.6.0 with the reason');
  await new Promise((r) => setTimeout(r, 300));
  expect(logs.filter((l) => l.level >= 50).length === errorsBefore, 'nothing logged at error level');
}

console.log('\n6. postmaster');
{
  const bare = await smtp('admin@remote.example', ['postmaster'], 'From: admin@remote.example\r\nSubject: Your MX\r\n\r\nPlease look.\r\n');
  const domain = await smtp('admin@remote.example', [`PostMaster@${inboundDomain}`], 'From: admin@remote.example\r\nSubject: Your MX 2\r\n\r\nPlease look.\r\n');
  console.log(`  bare: ${bare.slice(2).join(' | ')}\n  @${inboundDomain}: ${domain.slice(2).join(' | ')}`);
  expect(/^250 /.test(bare[2]!) && /^250 2\.6\.0 Message received for postmaster/.test(last(bare)), 'RCPT TO:<postmaster> taken');
  expect(/^250 /.test(domain[2]!) && /^250 /.test(last(domain)), `postmaster@${inboundDomain} taken`);
  const cli = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'postmaster'], { cwd: ROOT, env: { ...process.env, ...env, MAILROOM_LOG_LEVEL: 'silent' } });
  let out = '';
  cli.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((r) => cli.once('exit', r));
  console.log(out.trimEnd().replace(/^/gm, '    '));
  expect(/2 messages/.test(out) && /Your MX 2/.test(out), '`mailroom postmaster` lists both');
}

const N = Number(process.env.PROBE_CONCURRENT ?? 10);
console.log(`\n7. ${N} messages of 9.8 MB at once (one connection each, ten per client address)`);
{
  const body = Buffer.alloc(Math.floor(9.8 * 1024 * 1024 * 0.74), 'attachment bytes ').toString('base64').replace(/.{76}/g, '$&\r\n');
  const raw = (i: number) => message(`Concurrent ${i}`, 'Content-Type: multipart/mixed; boundary="b1"\r\n', `--b1\r\nContent-Type: text/plain\r\n\r\nSee the file.\r\n--b1\r\nContent-Type: application/octet-stream; name="big.bin"\r\nContent-Transfer-Encoding: base64\r\n\r\n${body}\r\n--b1--\r\n`);
  const before = rss();
  const started = performance.now();
  const w = await watched(async () => {
    const replies = await Promise.all(Array.from({ length: N }, (_, i) => smtp('jane@customer.example', [address], raw(i), '', `127.0.0.${2 + Math.floor(i / 10)}`)));
    const until = Date.now() + 120_000;
    while (posts.filter((q) => q.json.Subject?.startsWith('Concurrent')).length < replies.filter((r) => /^250 /.test(last(r))).length && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    return replies;
  });
  const codes = w.result.map((r) => last(r).slice(0, 9));
  console.log(`  replies: ${[...new Set(codes)].map((c) => `${codes.filter((x) => x === c).length} x ${c}`).join(', ')}; all posted in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  console.log(`  slowest /healthz ${w.slowest.toFixed(0)} ms; RSS ${before.toFixed(0)} -> peak ${w.peak.toFixed(0)} MB`);
  expect(w.slowest < 2000, '/healthz answered within 2 s');
}

console.log(`\npeak RSS of the whole run (VmHWM): ${rss('VmHWM').toFixed(0)} MB`);
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
hook.close();
await dns.close();
rmSync(dir, { recursive: true, force: true });
if (failures.length) {
  console.log(`\n${failures.length} expectation(s) failed`);
  process.exit(1);
}
console.log('\nevery expectation held');
