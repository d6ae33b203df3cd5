// The CSS inlining itself (juice), run on a worker thread (infra/threads, inline-css.ts) or, for a small
// document, on the caller's thread. Its own module so that a worker loads juice and nothing of the renderer.
import juice from 'juice';

export function inlineStyles(html: string): string {
  return juice(html, { preserveMediaQueries: true, preserveFontFaces: true, removeStyleTags: true, applyWidthAttributes: false, applyHeightAttributes: false });
}
