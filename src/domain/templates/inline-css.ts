// InlineCss (docs/reference/templates.md, "Sending with a template"): many mail clients ignore <style> blocks,
// so the rules are moved into style="" attributes. juice is the maintained library for exactly this (CSS
// specificity, !important, media queries kept in a <style> block since they cannot be inlined).
//
// juice's work grows with rules times elements (each rule's selector is matched against the whole document)
// on top of parsing and writing the document back (about 2 µs an element): 1,000 rules over 3,000 elements
// (70 KB of HTML) took 0.76 s of CPU, so a template the size of a render's output cap would hold the event loop
// for hours. The work is estimated first, in one pass, and refused past INLINE_CSS_BUDGET (issue 27).
import juice from 'juice';
import { RenderBudgetError } from './render.js';

/** Cost units of one inlining: elements x (selectors + ELEMENT_COST); a unit is about 0.25 µs of juice's CPU,
 * so the largest inlining allowed takes about 250 ms (measured on the loaded 2-core development machine). A
 * large newsletter (3,000 elements, 250 selectors) is 774,000. */
export const INLINE_CSS_BUDGET = 1_000_000;
/** Parsing and writing back one element costs about as much as matching eight selectors against it. */
const ELEMENT_COST = 8;

const isLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** Selectors juice would match: the top-level rules of every <style> block, each comma-separated selector once. */
function countSelectors(html: string): number {
  let n = 0;
  const open = /<style[\s>]/gi;
  const close = /<\/style/gi;
  for (let m = open.exec(html); m; m = open.exec(html)) {
    close.lastIndex = open.lastIndex;
    const end = close.exec(html)?.index ?? html.length;
    let depth = 0;
    for (let i = open.lastIndex; i < end; i++) {
      const c = html[i];
      if (c === '{') {
        if (depth === 0) n++;
        depth++;
      } else if (c === '}') depth = Math.max(0, depth - 1);
      else if (c === ',' && depth === 0) n++;
    }
    open.lastIndex = end;
  }
  return n;
}

/** Start tags: '<' before a letter. */
function countElements(html: string): number {
  let n = 0;
  for (let i = html.indexOf('<'); i >= 0; i = html.indexOf('<', i + 1)) if (isLetter(html.charCodeAt(i + 1))) n++;
  return n;
}

export function inlineCss(html: string, budget = INLINE_CSS_BUDGET): string {
  // Nothing to inline: leave the HTML byte for byte as written (and skip the parse).
  if (!/<style[\s>]/i.test(html)) return html;
  const selectors = countSelectors(html);
  const elements = countElements(html);
  if (elements * (selectors + ELEMENT_COST) > budget) {
    throw new RenderBudgetError(
      'InlineCss',
      `Inlining the CSS would match ${selectors} style rules against ${elements} elements, more work than one message may take (${budget} units of elements x (rules + ${ELEMENT_COST})): inline the styles in the template, use fewer rules, or send with InlineCss false`,
    );
  }
  return juice(html, { preserveMediaQueries: true, preserveFontFaces: true, removeStyleTags: true, applyWidthAttributes: false, applyHeightAttributes: false });
}
