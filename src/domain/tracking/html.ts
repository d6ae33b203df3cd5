// HTML side of tracking: the open pixel and the rewriting of <a href>. A full HTML parser is not needed for
// this: only the start tags of <a> elements are touched, found by a tokenizer-grade pattern that respects
// quoted attribute values (which may contain '>'), and everything else passes through byte for byte.

/** Where an <a ...> start tag begins. */
const A_OPEN = /<a\b/gi;
/** The href attribute inside a start tag; the leading whitespace keeps data-href and the like out. */
const HREF = /(\shref\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i;
/** Postmark's per-link opt-out, honoured for compatibility with existing templates. */
const NO_TRACK = /\sdata-pm-no-track\b/i;

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the character references an attribute value may carry (&amp; in query strings, mostly). */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi, (m, ref: string) => {
    if (ref[0] === '#') {
      const cp = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(cp) && cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    const name = ref.toLowerCase();
    return Object.hasOwn(NAMED, name) ? NAMED[name]! : m; // not `NAMED[name]`: "&constructor;" is no entity
  });
}

/**
 * Replaces the href of every <a> whose (decoded) link `rewrite` returns a new URL for. The replacement is
 * written double-quoted; tracking URLs contain only URL-safe characters, so no escaping is needed.
 * A link whose visible text is itself a URL or a host name is left as it is (linkTextIsUrl): tracked, its
 * text would name one place while it leads to another, the phishing pattern that mail clients warn about
 * and SpamAssassin scores (HTTPS_HTTP_MISMATCH and the like).
 */
export function rewriteHtmlLinks(html: string, rewrite: (link: string) => string | null, textIsUrl?: (link: string) => void): string {
  let out = '';
  let copied = 0;
  A_OPEN.lastIndex = 0;
  for (let open = A_OPEN.exec(html); open; open = A_OPEN.exec(html)) {
    const end = tagEnd(html, open.index + 2);
    if (end === -1) break; // an attribute value left open runs to the end: no tag follows (13.2.5.38)
    const tag = html.slice(open.index, end);
    const keep = linkTextIsUrl(visibleText(html, end));
    if (keep && textIsUrl) rewriteTag(tag, (link) => (textIsUrl(link), null));
    out += html.slice(copied, open.index) + (keep ? tag : rewriteTag(tag, rewrite));
    copied = end;
    A_OPEN.lastIndex = end;
  }
  return out + html.slice(copied);
}

/**
 * The end (after '>') of the start tag whose attributes begin at `from`, or -1. Quoted attribute values may
 * contain '>' (HTML Living Standard, 13.2.5). Scanned once: as the pattern /<a\b(?:[^>"']|"[^"]*"|'[^']*')*>/g,
 * an unclosed quote made every later "<a" reread the rest of the document (quadratic in the HTML).
 */
function tagEnd(html: string, from: number): number {
  for (let i = from; i < html.length; i++) {
    const c = html[i];
    if (c === '>') return i + 1;
    if (c === '"' || c === "'") {
      const close = html.indexOf(c, i + 1);
      if (close === -1) return -1;
      i = close;
    }
  }
  return -1;
}

/** The longest link text examined: a URL past the tracked-link limit is not tracked anyway. */
const MAX_TEXT = 2048;

/**
 * The text of the link whose start tag ends at `from`: up to its </a>, the next <a (links do not nest, HTML
 * 13.2.6.4.7) or MAX_TEXT characters, with tags left out. Each link's region ends where the next link's
 * begins, so the scans of a document together read it once.
 */
export function visibleText(html: string, from: number): string {
  let text = '';
  let inTag = false;
  const stop = Math.min(html.length, from + MAX_TEXT);
  for (let i = from; i < stop; i++) {
    const c = html[i];
    if (c === '<') {
      const n = html[i + 1];
      const isA = (n === 'a' || n === 'A') && !/[a-z0-9]/i.test(html[i + 2] ?? '');
      const isClose = n === '/' && (html[i + 2] === 'a' || html[i + 2] === 'A') && !/[a-z0-9]/i.test(html[i + 3] ?? '');
      if (isA || isClose) break;
      inTag = true;
    } else if (c === '>' && inTag) inTag = false;
    else if (!inTag) text += c;
  }
  return text;
}

// What a reader and a mail client's phishing check take for an address: a URL with a scheme, or a host name
// (dot-separated labels ending in a top-level name of letters) with an optional port, path or query.
// Patterns without overlapping repetition (each label ends at a dot), so the test is linear in the text.
const SCHEME_URL = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;
const HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/i;
const TLD = /^[a-z]{2,}$/i;

/** True when a link's visible text reads as a URL or host name (entities decoded, white space trimmed). */
export function linkTextIsUrl(text: string): boolean {
  const t = decodeEntities(text).trim();
  if (t.length === 0 || t.length >= MAX_TEXT || /\s/.test(t)) return false;
  if (SCHEME_URL.test(t)) return true;
  const hostEnd = t.search(/[/:?#]/);
  const host = hostEnd === -1 ? t : t.slice(0, hostEnd);
  return HOST.test(host) && TLD.test(host.slice(host.lastIndexOf('.') + 1));
}

function rewriteTag(tag: string, rewrite: (link: string) => string | null): string {
  if (NO_TRACK.test(tag)) return tag;
  const m = HREF.exec(tag);
  if (!m) return tag;
  const link = decodeEntities((m[2] ?? m[3] ?? m[4] ?? '').trim());
  const url = rewrite(link);
  if (url === null) return tag;
  return tag.slice(0, m.index) + `${m[1]}"${url}"` + tag.slice(m.index + m[0].length);
}

/** Puts the pixel just before the last </body>, or at the end when the HTML has no body tag. */
export function insertPixel(html: string, pixelUrl: string): string {
  const img = `<img src="${pixelUrl}" width="1" height="1" border="0" alt="" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`;
  // The last match, found in one pass (a negative lookahead over the rest of the text per "</body" was quadratic).
  let at = -1;
  for (const m of html.matchAll(/<\/body\s*>/gi)) at = m.index;
  return at === -1 ? html + img : html.slice(0, at) + img + html.slice(at);
}
