// The links a link check tests (Mailpit's internal/linkcheck): <a href>, <link rel="stylesheet" href> and
// <img src> of the HTML, then the http(s) URLs of the text part, plain or in angle brackets (RFC 3986
// appendix C: a URL in text may be delimited by <>), unique, in order of appearance, at most `max`. One pass
// of the tokenizer and of indexOf over the text; no regular expression runs over the sender's text.
import { tokenize } from './html-tokens.js';

/** Mailpit's limit of unique links tested per message. */
export const MAX_LINKS = 100;
const MAX_URL = 2048;

const isHttp = (s: string) => /^https?:\/\//i.test(s);
// Mailpit's URL characters: [-\w@:%_+'!.~#?,&/=;]
const URL_CHAR = /[-\w@:%+'!.~#?,&/=;]/;

export function extractLinks(html: string, text: string, max = MAX_LINKS): string[] {
  const seen = new Set<string>();
  const add = (raw: string): boolean => {
    const url = raw.trim();
    if (url && url.length <= MAX_URL && isHttp(url)) seen.add(url);
    return seen.size < max;
  };
  if (html) {
    const htmlLinks: string[] = [];
    tokenize(html, {
      start(t) {
        if (t.name === 'a' && t.attrs.has('href')) htmlLinks.push(t.attrs.get('href')!);
        else if (t.name === 'link' && (t.attrs.get('rel') ?? '').toLowerCase().split(/\s+/).includes('stylesheet') && t.attrs.has('href')) htmlLinks.push(t.attrs.get('href')!);
        else if (t.name === 'img' && t.attrs.has('src')) htmlLinks.push(t.attrs.get('src')!);
      },
    });
    for (const l of htmlLinks) if (!add(l)) return [...seen];
  }
  if (text) {
    const lower = text.toLowerCase();
    let i = 0;
    while (seen.size < max) {
      const at = lower.indexOf('http', i);
      if (at < 0) break;
      const rest = lower.startsWith('http://', at) ? 7 : lower.startsWith('https://', at) ? 8 : 0;
      if (!rest) {
        i = at + 4;
        continue;
      }
      let end = at + rest;
      // <https://example.com/a long/path>: to the '>', line breaks dropped; looked for within the longest URL
      // kept, so that many unclosed '<http' cost linear time.
      const k = at > 0 && text[at - 1] === '<' ? text.slice(end, at + MAX_URL).indexOf('>') : -1;
      if (k >= 0) {
        end += k;
        add(text.slice(at, end).replace(/[\r\n]/g, ''));
      } else {
        while (end < text.length && end - at <= MAX_URL && URL_CHAR.test(text[end]!)) end++;
        // Sentence punctuation after a URL is not part of it ("see https://example.com/a.").
        let e = end;
        while (e > at + rest && ".,;:!?'".includes(text[e - 1]!)) e--;
        if (e > at + rest) add(text.slice(at, e));
      }
      i = Math.max(end, at + rest);
    }
  }
  return [...seen];
}
