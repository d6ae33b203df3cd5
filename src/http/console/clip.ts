// A body shown inside a console page is cut: a 10 MB message made a 20 MB page (every character escaped into
// it) that a browser gave up on. The page shows the start of it and links to the whole as plain text, which
// the browser shows without building a document of it.
import { html, type Html } from './html.js';

/** Characters of one body a page shows inline. */
export const PAGE_BODY_CHARS = 64 * 1024;

/** `<pre>` of the text, cut at PAGE_BODY_CHARS with a link to `whole` (the full text) when longer. */
export function clippedPre(text: string, whole: string, attrs: { id?: string; class?: string } = {}): Html {
  const pre = (t: string) => html`<pre${attrs.id ? html` id="${attrs.id}"` : ''}${attrs.class ? html` class="${attrs.class}"` : ''}>${t}</pre>`;
  if (text.length <= PAGE_BODY_CHARS) return pre(text);
  // Not between the two halves of a surrogate pair.
  const end = PAGE_BODY_CHARS - (/[\ud800-\udbff]/.test(text[PAGE_BODY_CHARS - 1]!) ? 1 : 0);
  return html`${pre(text.slice(0, end))}<p class="muted clipped">Showing the first ${end.toLocaleString('en')} of ${text.length.toLocaleString('en')} characters. <a href="${whole}" target="_blank" rel="noopener">Open the whole as plain text</a></p>`;
}
