// Linear scans of CSS for the HTML check: a declaration list into (property, value, !important), and a style
// sheet into its top-level rules (what a CSS inliner such as Mailpit's premailer can merge into elements) and
// the at-rules and pseudo-classes it uses. One forward pass each; comments and strings skipped with indexOf.

export interface Declaration {
  prop: string;
  value: string;
  important: boolean;
}

/** `color: red; width: 10px !important` -> declarations (a `;` inside parentheses or quotes does not split). */
export function parseDeclarations(text: string): Declaration[] {
  const out: Declaration[] = [];
  let depth = 0;
  let start = 0;
  const n = text.length;
  const push = (end: number) => {
    const part = text.slice(start, end);
    const colon = part.indexOf(':');
    if (colon > 0) {
      const prop = part.slice(0, colon).trim().toLowerCase();
      let value = part.slice(colon + 1).trim();
      const bang = value.toLowerCase().lastIndexOf('!important');
      const important = bang >= 0 && value.slice(bang + 10).trim() === '';
      if (important) value = value.slice(0, bang).trim();
      if (prop) out.push({ prop, value, important });
    }
  };
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x27) {
      const close = text.indexOf(c === 0x22 ? '"' : "'", i + 1);
      i = close < 0 ? n : close;
    } else if (c === 0x28) depth++;
    else if (c === 0x29) depth = Math.max(0, depth - 1);
    else if (c === 0x3b && depth === 0) {
      push(i);
      start = i + 1;
    }
  }
  push(n);
  return out;
}

export interface CssRule {
  selectors: string[];
  declarations: Declaration[];
}

/** Without comments: they could hide a `{` or `}` (one pass). */
function stripComments(css: string): string {
  if (!css.includes('/*')) return css;
  let out = '';
  let i = 0;
  for (;;) {
    const open = css.indexOf('/*', i);
    if (open < 0) return out + css.slice(i);
    out += css.slice(i, open);
    const close = css.indexOf('*/', open + 2);
    if (close < 0) return out;
    i = close + 2;
  }
}

/**
 * The top-level style rules of a style sheet; at-rule blocks (@media, @supports, @font-face, @keyframes) are
 * skipped, as an inliner leaves them in the <style> element.
 */
export function topLevelRules(cssText: string): CssRule[] {
  const css = stripComments(cssText);
  const rules: CssRule[] = [];
  const n = css.length;
  let i = 0;
  while (i < n) {
    const open = css.indexOf('{', i);
    if (open < 0) break;
    let prelude = css.slice(i, open).trim();
    // A statement at-rule (@import ...;) before the block belongs to neither.
    const semi = prelude.lastIndexOf(';');
    if (semi >= 0) prelude = prelude.slice(semi + 1).trim();
    // The block's end: matching braces (an at-rule block holds rules).
    let depth = 1;
    let j = open + 1;
    while (j < n && depth > 0) {
      const c = css.charCodeAt(j);
      if (c === 0x7b) depth++;
      else if (c === 0x7d) depth--;
      j++;
    }
    if (!prelude.startsWith('@') && prelude) {
      rules.push({
        selectors: prelude.split(',').map((s) => s.trim()).filter(Boolean),
        declarations: parseDeclarations(css.slice(open + 1, depth === 0 ? j - 1 : j)),
      });
    }
    i = j;
  }
  return rules;
}

/** Occurrences of a literal (case-insensitive when `lowerText` is the lower-cased text), counted by indexOf. */
export function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) count++;
  return count;
}
