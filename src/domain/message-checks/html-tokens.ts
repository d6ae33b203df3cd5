// A linear HTML tokenizer for the message checks: start tags with their attributes, and the text of the raw-text
// elements (<style>, <script>, <textarea>, <title>). A sender writes this HTML, so every character is looked at
// a bounded number of times: the scan only moves forward, a comment or raw-text element is skipped with one
// indexOf, and no regular expression runs over the document. No tree is built (an unclosed tag cannot make a
// later end tag search a deep stack); the checks need tags and attributes, not nesting.

export interface StartTag {
  /** Lower-case tag name. */
  name: string;
  /** Lower-case attribute names; values with character references decoded. The first of a repeated name wins. */
  attrs: Map<string, string>;
}

export interface TokenSink {
  start(tag: StartTag): void;
  /** The content of a raw-text element (<style>, <script>, <textarea>, <title>). */
  rawText?(name: string, text: string): void;
  end?(name: string): void;
}

const RAW_TEXT = new Set(['style', 'script', 'textarea', 'title', 'xmp', 'noembed', 'noframes']);

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
const isAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the character references a URL or a style attribute usually carries (one pass, no backtracking). */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,6});/g, (all, ref: string) => {
    if (ref[0] === '#') {
      const cp = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : all;
    }
    return NAMED[ref.toLowerCase()] ?? all;
  });
}

/** Tokenizes `html`, calling the sink for each start tag, raw text and end tag. Time linear in the length. */
export function tokenize(html: string, sink: TokenSink): void {
  const n = html.length;
  let lower: string | null = null; // for case-insensitive search of a raw-text element's end tag, made once
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt < 0 || lt + 1 >= n) return;
    const c = html.charCodeAt(lt + 1);
    if (c === 0x21 /* ! */) {
      if (html.startsWith('!--', lt + 1)) {
        const close = html.indexOf('-->', lt + 4);
        i = close < 0 ? n : close + 3;
      } else {
        const close = html.indexOf('>', lt + 2);
        i = close < 0 ? n : close + 1;
      }
      continue;
    }
    if (c === 0x3f /* ? */) {
      const close = html.indexOf('>', lt + 2);
      i = close < 0 ? n : close + 1;
      continue;
    }
    if (c === 0x2f /* / */) {
      let j = lt + 2;
      while (j < n && !isSpace(html.charCodeAt(j)) && html.charCodeAt(j) !== 0x3e) j++;
      const name = html.slice(lt + 2, j).toLowerCase();
      const close = html.indexOf('>', j);
      i = close < 0 ? n : close + 1;
      if (name) sink.end?.(name);
      continue;
    }
    if (!isAlpha(c)) {
      i = lt + 1;
      continue;
    }
    // A start tag: its name, then attributes until '>'.
    let j = lt + 1;
    while (j < n) {
      const d = html.charCodeAt(j);
      if (isSpace(d) || d === 0x2f || d === 0x3e) break;
      j++;
    }
    const name = html.slice(lt + 1, j).toLowerCase();
    const attrs = new Map<string, string>();
    while (j < n) {
      while (j < n && (isSpace(html.charCodeAt(j)) || html.charCodeAt(j) === 0x2f)) j++;
      if (j >= n || html.charCodeAt(j) === 0x3e) break;
      const a0 = j;
      // An attribute name runs to a space, '/', '>' or '=' (a leading '=' belongs to the name, as in HTML).
      j++;
      while (j < n) {
        const d = html.charCodeAt(j);
        if (isSpace(d) || d === 0x2f || d === 0x3e || d === 0x3d) break;
        j++;
      }
      const attrName = html.slice(a0, j).toLowerCase();
      let k = j;
      while (k < n && isSpace(html.charCodeAt(k))) k++;
      let value = '';
      if (k < n && html.charCodeAt(k) === 0x3d) {
        k++;
        while (k < n && isSpace(html.charCodeAt(k))) k++;
        const q = html.charCodeAt(k);
        if (q === 0x22 || q === 0x27) {
          const close = html.indexOf(q === 0x22 ? '"' : "'", k + 1);
          const end = close < 0 ? n : close;
          value = html.slice(k + 1, end);
          j = close < 0 ? n : close + 1;
        } else {
          let e = k;
          while (e < n && !isSpace(html.charCodeAt(e)) && html.charCodeAt(e) !== 0x3e) e++;
          value = html.slice(k, e);
          j = e;
        }
      }
      if (!attrs.has(attrName)) attrs.set(attrName, decodeEntities(value));
    }
    i = j + 1;
    sink.start({ name, attrs });
    if (RAW_TEXT.has(name) && i < n) {
      lower ??= html.toLowerCase();
      const close = lower.indexOf(`</${name}`, i);
      const end = close < 0 ? n : close;
      sink.rawText?.(name, html.slice(i, end));
      i = end;
    }
  }
}
