// Mailpit's Snippet (its tools.CreateSnippet): the HTML body's text when there is one, else the text body,
// whitespace collapsed, 200 characters and "..." at most. One pass over the body; tags are skipped, the
// content of <head>, <style> and <script> too, and the common entities decoded.
const LIMIT = 200;
const SKIPPED = ['head', 'style', 'script'];
const ENTITIES: Record<string, string> = { nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

function collapse(s: string): string {
  let out = '';
  let space = false;
  for (const ch of s) {
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t' || ch === '\f' || ch === '\v' || ch === '\uFEFF' || ch === '\u00a0') {
      space = out !== '';
      continue;
    }
    if (out.length > LIMIT * 2) break;
    if (space) out += ' ';
    space = false;
    out += ch;
  }
  return out;
}

/** The visible text of an HTML body, up to about `max` characters. */
export function htmlText(html: string, max = LIMIT * 4): string {
  let out = '';
  let i = 0;
  const lower = html.length > 2_000_000 ? html.slice(0, 2_000_000).toLowerCase() : html.toLowerCase();
  while (i < lower.length && out.length < max) {
    const ch = html[i]!;
    if (ch === '<') {
      const skip = SKIPPED.find((t) => lower.startsWith(t, i + 1) && !/[a-z0-9]/.test(lower[i + 1 + t.length] ?? ''));
      if (skip) {
        const close = lower.indexOf(`</${skip}`, i);
        i = close < 0 ? lower.length : close;
      }
      const end = lower.indexOf('>', i);
      i = end < 0 ? lower.length : end + 1;
      out += ' ';
      continue;
    }
    if (ch === '&') {
      const semi = lower.indexOf(';', i);
      const name = semi > i && semi - i <= 6 ? lower.slice(i + 1, semi) : '';
      if (name in ENTITIES) {
        out += ENTITIES[name];
        i = semi + 1;
        continue;
      }
    }
    out += ch;
    i++;
  }
  return out;
}

export function snippet(text: string | null, html: string | null): string {
  const source = html && html.trim() !== '' ? htmlText(html) : (text ?? '');
  const s = collapse(source);
  return s.length <= LIMIT ? s : `${[...s].slice(0, LIMIT).join('')}...`;
}
