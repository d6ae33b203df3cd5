// HTML side of tracking: the open pixel and the rewriting of <a href>. A full HTML parser is not needed for
// this: only the start tags of <a> elements are touched, found by a tokenizer-grade pattern that respects
// quoted attribute values (which may contain '>'), and everything else passes through byte for byte.

/** An <a ...> start tag; quoted attribute values may contain '>' (HTML Living Standard, 13.2.5). */
const A_TAG = /<a\b(?:[^>"']|"[^"]*"|'[^']*')*>/gi;
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
 */
export function rewriteHtmlLinks(html: string, rewrite: (link: string) => string | null): string {
  return html.replace(A_TAG, (tag) => {
    if (NO_TRACK.test(tag)) return tag;
    const m = HREF.exec(tag);
    if (!m) return tag;
    const link = decodeEntities((m[2] ?? m[3] ?? m[4] ?? '').trim());
    const url = rewrite(link);
    if (url === null) return tag;
    return tag.slice(0, m.index) + `${m[1]}"${url}"` + tag.slice(m.index + m[0].length);
  });
}

/** Puts the pixel just before the last </body>, or at the end when the HTML has no body tag. */
export function insertPixel(html: string, pixelUrl: string): string {
  const img = `<img src="${pixelUrl}" width="1" height="1" border="0" alt="" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`;
  const at = html.search(/<\/body\s*>(?![\s\S]*<\/body\s*>)/i);
  return at === -1 ? html + img : html.slice(0, at) + img + html.slice(at);
}
