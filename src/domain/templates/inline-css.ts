// InlineCss (docs/reference/templates.md, "Sending with a template"): many mail clients ignore <style> blocks,
// so the rules are moved into style="" attributes. juice is the maintained library for exactly this (CSS
// specificity, !important, media queries kept in a <style> block since they cannot be inlined).
import juice from 'juice';

export function inlineCss(html: string): string {
  // Nothing to inline: leave the HTML byte for byte as written (and skip the parse).
  if (!/<style[\s>]/i.test(html)) return html;
  return juice(html, { preserveMediaQueries: true, preserveFontFaces: true, removeStyleTags: true, applyWidthAttributes: false, applyHeightAttributes: false });
}
