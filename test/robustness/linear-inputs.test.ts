// tier: unit
// Every regular expression that a stranger's text reaches costs time linear in that text (issue 27): each path
// below gets a megabyte of its worst case (what made the old pattern backtrack) and must finish well within
// a bound that a quadratic pattern misses by orders of magnitude (160 KB of spaces through stripReply took
// 7.6 s; a megabyte would have taken minutes). The time measured is the process's CPU time, so that other work
// on a loaded machine does not count; the bound is still generous (most paths take tens of milliseconds).
// Time is all these tests judge, so they run in the perf tier only (test/helpers/timing.ts).
import { describe, it } from 'node:test';
import PostalMime from '../../src/infra/mime/postal-mime.js';
import { addressesIn } from '../../src/domain/bounces/addresses-in.js';
import { analysePlainBounce, returnedCopy } from '../../src/domain/bounces/plain-bounce.js';
import { addressChange, listRequest } from '../../src/domain/bounces/recipient-requests.js';
import { replyText } from '../../src/domain/bounces/reply-text.js';
import { parseFieldBlocks, typedAddress, typedValue } from '../../src/domain/bounces/report-fields.js';
import { textRule } from '../../src/domain/bounces/text-rules.js';
import { classifyStatus } from '../../src/domain/bounces/classify.js';
import { forbiddenExtension } from '../../src/domain/accepting/attachments.js';
import { parseStsPolicy } from '../../src/domain/delivery/mta-sts/policy.js';
import { stripReply } from '../../src/domain/inbound/strip-reply.js';
import { authservIdOf, withoutForgedHeaders } from '../../src/domain/inbound/own-headers.js';
import { splitPlus } from '../../src/domain/inbound/inbound-address.js';
import { parseContentType } from '../../src/infra/mime/content-type.js';
import { parseTemplate } from '../../src/domain/templates/parse.js';
import { renderTemplate } from '../../src/domain/templates/render.js';
import { inlineCss } from '../../src/domain/templates/inline-css.js';
import { insertPixel, rewriteHtmlLinks } from '../../src/domain/tracking/html.js';
import { relaxedBody } from '../../src/infra/dkim/canonicalize.js';
import { parseAddressList } from '../../src/infra/mime/address.js';
import { escape, showControls } from '../../src/http/console/html.js';
import { htmlCheck } from '../../src/domain/message-checks/html-check.js';
import { extractLinks } from '../../src/domain/message-checks/link-extract.js';
import { parseReport } from '../../src/infra/spamd/report.js';
import { cleanValue, parseQuery, splitWords } from '../../src/domain/mailpit/query.js';
import { htmlText, snippet } from '../../src/domain/mailpit/snippet.js';
import { cleanTag } from '../../src/domain/mailpit/tags.js';
import { basicPassword } from '../../src/domain/mailpit/access.js';
import { assertWithin, LEFT_TO_PERF, TIMED, TIMING_ONLY } from '../helpers/timing.js';

const MB = 1024 * 1024;
const BOUND_MS = 2000;

/** `unit` repeated to a megabyte, then `tail`. */
const mb = (unit: string, tail = '') => unit.repeat(Math.ceil(MB / unit.length)) + tail;

async function linear(name: string, run: () => unknown): Promise<void> {
  const started = process.cpuUsage();
  try {
    await run();
  } catch {
    // Refusing the input is as good as handling it; only the time counts here.
  }
  const used = process.cpuUsage(started);
  const ms = (used.user + used.system) / 1000;
  assertWithin(ms, BOUND_MS, `${name}: CPU for a megabyte`);
}

const email = (o: { text?: string; html?: string; subject?: string }) => ({ headers: [], attachments: [], ...o }) as never;

describe('a megabyte of the worst case, through every pattern a sender reaches', TIMING_ONLY, () => {
  it('inbound: stripReply (trailing whitespace, attribution lines, quote markers)' + TIMED, LEFT_TO_PERF, async () => {
    await linear('spaces then a letter', () => stripReply(mb(' ', 'x')));
    await linear('spaces at the end', () => stripReply('Hello' + mb(' ')));
    await linear('blank lines', () => stripReply(mb(' \n', 'x')));
    await linear('an attribution line of verbs', () => stripReply('On ' + mb('\twrote x')));
    await linear('German attribution', () => stripReply('Am x ' + mb('\tschrieb\ts') + ':x'));
    await linear('Russian attribution', () => stripReply(mb('пишет ', 'x:')));
    await linear('short form', () => stripReply(mb('a wrote', ' :')));
    await linear('Outlook separators', () => stripReply(mb('-', 'Original Message x')));
    await linear('header blocks', () => stripReply(mb('From: x\n')));
  });

  it("inbound: the forged verdict headers removed, mailroom's authserv-id read, +tags split" + TIMED, LEFT_TO_PERF, async () => {
    const rules = { authservId: 'inbound.example', spamScored: true };
    const header = (lines: string) => Buffer.from(lines + '\r\nbody\r\n');
    await linear('Authentication-Results claiming mailroom, alternating with others', () => withoutForgedHeaders(header(mb('Authentication-Results: inbound.example; spf=pass\r\nX-Keep: 1\r\n')), rules));
    await linear('Received-SPF and X-Spam-* fields', () => withoutForgedHeaders(header(mb('Received-SPF: pass\r\nX-Spam-Flag: YES\r\n')), rules));
    await linear('lines without a colon', () => withoutForgedHeaders(header(mb('Authentication-Results\r\n')), rules));
    await linear('one field folded a megabyte long', () => withoutForgedHeaders(header('Authentication-Results: ' + mb(' (\r\n')), rules));
    await linear('nested comments before the authserv-id', () => authservIdOf(mb('(')));
    await linear('quoted pairs in comments', () => authservIdOf('(' + mb('\\(')));
    await linear('an unclosed quoted authserv-id', () => authservIdOf('"' + mb('\\"')));
    await linear('plus signs', () => splitPlus(mb('+')));
  });

  it('attachment ContentType parameters (accepting, the MIME that mailroom writes)' + TIMED, LEFT_TO_PERF, async () => {
    await linear('many parameters', () => parseContentType('application/pdf' + mb('; a=b')));
    await linear('one quoted value of quoted pairs', () => parseContentType('application/pdf; a="' + mb('\\"') + '"'));
    await linear('an unterminated quoted value', () => parseContentType('application/pdf; a="' + mb('\\')));
    await linear('blanks between parameters', () => parseContentType('application/pdf;' + mb(' \t', 'a=b')));
    await linear('a long subtype', () => parseContentType('application/' + mb('x')));
  });

  it('bounces: addresses, plain bounces, report fields, text rules' + TIMED, LEFT_TO_PERF, async () => {
    await linear('a run of local-part characters', () => addressesIn(mb('-', '\u0000-@-.-')));
    await linear('a@a@a@...', () => addressesIn(mb('a@')));
    await linear('dashes before the original', () => returnedCopy(mb('-', '\n')));
    await linear('blank lines before the original', () => returnedCopy(mb('\n', 'x')));
    await linear('codes on a line', () => analysePlainBounce(mb('\t404-', '\u2028'), 'mailer-daemon@example.org'));
    await linear('a plain bounce of addresses', () => analysePlainBounce(mb('a'), 'mailer-daemon@example.org'));
    await linear('a field of blanks', () => parseFieldBlocks('!:' + mb('\t', '\u2028')));
    await linear('typed address', () => typedAddress('('.repeat(MB / 4) + '@('.repeat(MB / 4) + '('.repeat(MB / 4) + '<'));
    await linear('typed value', () => typedValue('-;' + mb('\t', '\n-\n;')));
    await linear('AS numbers', () => textRule(mb('as(5) ')));
    await linear('classify', () => classifyStatus({ text: mb('P)AS(5)('), action: 'failed' }));
  });

  it('bounces: replies (HTML to text, quotes, list commands, address changes)' + TIMED, LEFT_TO_PERF, async () => {
    await linear('unclosed tags', () => replyText(email({ html: mb('<') })));
    await linear('unclosed style', () => replyText(email({ html: mb('<style<') })));
    await linear('blank lines before a quote', () => replyText(email({ text: mb('\n', 'x') })));
    await linear('quote headers', () => replyText(email({ text: mb('on x\n') })));
    await linear('reply prefix', () => listRequest(email({ subject: 'RE' + mb(' ', 'x'), text: 'stop' })));
    await linear('address change', () => addressChange(email({ text: mb('-', '@-.-') }), []));
  });

  it('templates: parse, render, inline CSS' + TIMED, LEFT_TO_PERF, async () => {
    await linear('tags', () => parseTemplate(mb('{{a}}')));
    await linear('nested each', () => parseTemplate(mb('{{#each a}}')));
    await linear('unclosed tags', () => parseTemplate(mb('{{')));
    await linear('six nested loops', () => renderTemplate('{{#each a}}'.repeat(6) + '{{/each}}'.repeat(6), { a: Array.from({ length: 30 }, () => 1) }));
    await linear('style fragments', () => inlineCss('<style>p{color:red}</style>' + mb('<p ')));
    await linear('rules times elements', () => inlineCss(`<style>${mb('.a,.b{color:red}', '</style>')}` + mb('<p class="a">x</p>')));
    await linear('a path as deep as the model', () => {
      let m: Record<string, unknown> = {};
      const root = m;
      for (let i = 0; i < 10_000; i++) m = (m.x = {}) as Record<string, unknown>;
      return renderTemplate('{{#each a}}' + `{{x${'.x'.repeat(9_999)}}}`.repeat(50) + '{{/each}}', { ...root, a: Array.from({ length: 1000 }, () => 1) });
    });
    await linear('escaping', () => renderTemplate('{{#each a}}{{x}}{{/each}}', { x: mb('<'), a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }));
  });

  it('tracking, DKIM, addresses, attachments, MTA-STS' + TIMED, LEFT_TO_PERF, async () => {
    await linear('<a href= fragments', () => rewriteHtmlLinks(mb('<a href='), () => 'https://t.example/x'));
    await linear('unclosed quotes in <a>', () => rewriteHtmlLinks(mb("'<A'A", '"<A>'), () => 'https://t.example/x'));
    await linear('link text of labels and dots', () => rewriteHtmlLinks(mb('<a href=x>' + 'a.'.repeat(1000) + '1'), () => 'https://t.example/x'));
    await linear('link text of one long URL', () => rewriteHtmlLinks('<a href=x>https://' + mb('a.b/'), () => 'https://t.example/x'));
    await linear('link text of tags and entities', () => rewriteHtmlLinks(mb('<a href=x><b>&amp;www.<i>'), () => 'https://t.example/x'));
    await linear('</body> many times', () => insertPixel(mb('</body>'), 'https://t.example/p'));
    await linear('blanks in a body', () => relaxedBody(mb('\t', 'x')));
    await linear('open quotes in an address', () => parseAddressList(mb('\u0000\\"\\')));
    await linear('a@a@a@ in an address', () => parseAddressList(mb('a@')));
    await linear('attachment name of dots and blanks', () => forbiddenExtension(mb('\t', '\u0000\t')));
    await linear('policy line of blanks', () => parseStsPolicy('version: STSv1\n0:' + mb('\t', 'x')));
  });

  it('MIME parsing (postal-mime) of the same inputs' + TIMED, LEFT_TO_PERF, async () => {
    const message = (headers: string, body: string) => `From: a@example.org\r\nTo: b@example.net\r\n${headers}\r\n${body}`;
    await linear('whitespace body', () => PostalMime.parse(message('Subject: x\r\nContent-Type: text/plain\r\n', mb(' ', 'x'))));
    await linear('encoded-word fragments', () => PostalMime.parse(message(`Subject: ${mb('=?utf-8?q?')}\r\n`, 'x')));
    // A megabyte of short lines: postal-mime keeps one Blob part per line, which Node's own Blob read back at
    // 5-9 s of CPU a megabyte; mailroom's wrapper (src/infra/mime/postal-mime.ts) joins them (joined-blob.ts).
    await linear('boundary-like lines', () =>
      PostalMime.parse(message('Content-Type: multipart/mixed; boundary="b"\r\n', '--b\r\nContent-Type: text/plain\r\n\r\n' + mb('--\r\n'))),
    );
    await linear('address fragments', () => PostalMime.parse(message(`Cc: ${mb('a@a@')}\r\n`, 'x')));
  });

  it('console: escaping and the bidirectional-override marks of inbound names and subjects' + TIMED, LEFT_TO_PERF, async () => {
    await linear('overrides', () => showControls(mb('\u202e\u2066')));
    await linear('markup', () => escape(mb('<&"\'`')));
  });

  it('message checks: the HTML check, link extraction, a spamd report (issue 24)' + TIMED, LEFT_TO_PERF, async () => {
    const check = (html: string) => () => htmlCheck(html);
    await linear('unclosed tags with attributes', check(mb('<a x=1 y ')));
    await linear('many elements with classes', check(mb('<div class="a b c" style="display:flex;gap:1rem">')));
    await linear('an unclosed comment', check('<p>' + mb('<!--')));
    await linear('an unclosed quote', check(mb('<a href="')));
    await linear('end tags without start tags', check(mb('<div>') + mb('</span>')));
    await linear('rules times elements', check(`<style>${mb('.a{display:flex;width:1rem}')}</style>` + mb('<p class="a">')));
    await linear('a selector of many classes', check(`<style>${mb('.a')}{color:red}</style><p class="a">`));
    await linear('declarations and parentheses', check(`<p style="${mb('a:(;')}">`));
    await linear('an unclosed style element', check('<style>' + mb('@media{a:hover{')));
    await linear('numbers and units', check(`<p style="width:${mb('1rem1vw')}">`));
    await linear('text links: http without a scheme end', () => extractLinks('', mb('http')));
    await linear('text links: unclosed angle brackets', () => extractLinks('', mb('<http://a ')));
    await linear('text links: one long URL', () => extractLinks('', 'https://' + mb('a')));
    await linear('text links: trailing punctuation', () => extractLinks('', 'https://a' + mb('.')));
    await linear('html links', () => extractLinks(mb('<a href=http://x/'), ''));
    await linear('spamd report rows', () => parseReport('SPAMD/1.1 0 EX_OK\r\nSpam: False ; 1.0 / 5.0\r\n\r\nContent analysis details\n' + mb(' 1.0 RULE ' + ' '.repeat(40) + '\n' + ' '.repeat(30) + 'x\n')));
  });

  it("Mailpit's search query, snippets, tags and Basic credentials" + TIMED, LEFT_TO_PERF, async () => {
    await linear('one quoted phrase', () => parseQuery('"' + mb('a ')));
    await linear('a megabyte of spaces', () => parseQuery(mb(' ', 'x')));
    await linear('many words (refused after the limit)', () => parseQuery(mb('a ')));
    await linear('quotes', () => splitWords(mb('"')));
    await linear('negations and prefixes', () => parseQuery(mb('-!to:')));
    await linear('one long term', () => parseQuery('subject:' + mb('x')));
    await linear('dates', () => parseQuery('after:' + mb('2026-')));
    await linear('separators to clean', () => cleanValue(mb('<>,;() \t')));
    await linear('unclosed tags', () => htmlText(mb('<'), MB));
    await linear('unclosed style', () => htmlText(mb('<style'), MB));
    await linear('entities', () => snippet(null, mb('&amp')));
    await linear('tag characters', () => cleanTag(mb('/ ')));
    await linear('Basic credentials', () => basicPassword('Basic ' + mb('A')));
  });
});

