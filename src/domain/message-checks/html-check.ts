// The HTML check (Mailpit's GET /api/v1/message/{ID}/html-check, internal/htmlcheck): which HTML and CSS
// features of caniemail.com's data the message's HTML uses, with each feature's support across email
// clients and a weighted total. Mailpit finds them with CSS selectors over a parsed tree and a CSS inliner;
// here one linear tokenizer pass (html-tokens.ts) collects the elements, and the style sheet's top-level rules
// count as applied to the elements their last compound selector names (the count an inliner would give,
// bounded above by the least frequent of its type, class, id and attribute). Linked style sheets are not
// downloaded: a check must not make outbound requests on a read.
import { caniemailPlatforms, featureWarning, hasFeature, type CheckWarning } from './caniemail-data.js';
import { countOccurrences, parseDeclarations, topLevelRules, type Declaration } from './css-scan.js';
import { CSS_AT_AND_PSEUDO, CSS_PROPERTY_TESTS, CSS_UNIT_TESTS, HTML_TESTS, IMAGE_TESTS, STYLE_ATTRIBUTE_TESTS } from './html-tests.js';
import { tokenize, type StartTag } from './html-tokens.js';

export interface HtmlCheckResponse {
  Warnings: CheckWarning[];
  Platforms: Record<string, string[]>;
  Total: { Tests: number; Nodes: number; Supported: number; Partial: number; Unsupported: number };
}

const HEAD_ONLY = new Set(['html', 'head', 'body', 'meta', 'title', 'base', 'link', 'style']);

class Counter extends Map<string, number> {
  add(key: string, by = 1): void {
    if (by > 0) this.set(key, (this.get(key) ?? 0) + by);
  }
}

/** The slugs a declaration list shows (each once), e.g. `display:flex` -> css-display, css-display-flex. */
function propertySlugs(decls: Declaration[]): Set<string> {
  const hit = new Set<string>();
  for (const d of decls) for (const [slug, test] of CSS_PROPERTY_TESTS) if (test(d)) hit.add(slug);
  return hit;
}

function unitCounts(decls: Declaration[], into: Counter, times: number): void {
  for (const d of decls) for (const [slug, count] of CSS_UNIT_TESTS) into.add(slug, count(d) * times);
}

interface Index {
  all: number;
  tags: Counter;
  classes: Counter;
  ids: Counter;
  attrs: Counter;
}

/** How many elements the rule's last compound selector names; 0 for what an inliner leaves alone (:hover, ...). */
function matchedCount(selector: string, ix: Index): number {
  const parts = selector.split(/[\s>+~]/);
  const last = parts[parts.length - 1] ?? '';
  if (!last || last.includes(':')) return 0;
  const counts: number[] = [];
  const tag = /^[a-zA-Z][a-zA-Z0-9-]*/.exec(last)?.[0];
  if (tag) counts.push(ix.tags.get(tag.toLowerCase()) ?? 0);
  for (const m of last.matchAll(/([.#])([^.#[\]]+)/g)) counts.push((m[1] === '.' ? ix.classes : ix.ids).get(m[2]!) ?? 0);
  for (const m of last.matchAll(/\[([a-zA-Z0-9_-]+)/g)) counts.push(ix.attrs.get(m[1]!.toLowerCase()) ?? 0);
  return counts.length ? counts.reduce((a, b) => Math.min(a, b)) : ix.all;
}

export function htmlCheck(html: string): HtmlCheckResponse {
  const found = new Counter();
  const ix: Index = { all: 0, tags: new Counter(), classes: new Counter(), ids: new Counter(), attrs: new Counter() };
  let styleText = '';
  let nodes = 0;
  let scripts = 0;
  let inBody = false;
  const hasBodyEnd = html.toLowerCase().includes('</body');
  const attributeSeen = new Set<string>();

  tokenize(html, {
    start(t: StartTag) {
      ix.all++;
      ix.tags.add(t.name);
      for (const name of t.attrs.keys()) ix.attrs.add(name);
      for (const c of (t.attrs.get('class') ?? '').split(/\s+/)) if (c) ix.classes.add(c);
      const id = t.attrs.get('id');
      if (id) ix.ids.add(id);
      // Mailpit counts "*:not(html):not(head):not(meta), script" in a full document, "body *, script" in a fragment.
      if (!HEAD_ONLY.has(t.name)) inBody = true;
      if (t.name === 'script' || (hasBodyEnd ? !['html', 'head', 'meta'].includes(t.name) : inBody && t.name !== 'body')) nodes++;
      if (t.name === 'script') {
        const type = (t.attrs.get('type') ?? '').toLowerCase();
        if (type !== 'application/ld+json' && type !== 'application/json') scripts++;
      }
      for (const [slug, test] of HTML_TESTS) if (test(t)) found.add(slug);
      if (t.name === 'img' && t.attrs.has('src')) {
        const src = t.attrs.get('src')!;
        for (const [slug, test] of IMAGE_TESTS) if (test(src)) found.add(slug);
      }
      for (const [slug, attr] of STYLE_ATTRIBUTE_TESTS) if (t.attrs.has(attr)) attributeSeen.add(slug);
      const style = t.attrs.get('style');
      if (style) {
        const decls = parseDeclarations(style);
        for (const slug of propertySlugs(decls)) found.add(slug);
        unitCounts(decls, found, 1);
      }
    },
    rawText(name, text) {
      if (name === 'style') styleText += text + '\n';
    },
  });

  // Mailpit adds one for a styling attribute (width="600") however many elements carry it.
  for (const slug of attributeSeen) found.add(slug);
  // The style sheet's rules, as merged into the elements they apply to.
  for (const rule of topLevelRules(styleText)) {
    const times = rule.selectors.reduce((sum, s) => sum + matchedCount(s, ix), 0);
    if (times === 0) continue;
    for (const slug of propertySlugs(rule.declarations)) found.add(slug, times);
    unitCounts(rule.declarations, found, times);
  }
  const styleLower = styleText.toLowerCase();
  for (const [slug, needle, caseless] of CSS_AT_AND_PSEUDO) found.add(slug, countOccurrences(caseless ? styleLower : styleText, needle));
  if (hasBodyEnd) found.set('html-body', 1);

  const warnings: CheckWarning[] = [];
  if (scripts > 0) {
    warnings.push({
      Slug: 'html-script',
      Title: '<script> element',
      Description: 'JavaScript is not supported in any email client.',
      URL: '',
      Category: 'html',
      Tags: [],
      Keywords: '',
      Results: [],
      NotesByNumber: {},
      Score: { Found: scripts, Supported: 0, Partial: 0, Unsupported: 100 },
    });
  }
  for (const [slug, count] of found) {
    if (count <= 0 || !hasFeature(slug)) continue;
    const w = featureWarning(slug, count);
    if (w) warnings.push(w);
  }

  // Mailpit's total: the worst weighted share (percentage x occurrences / nodes) of partial and of no support.
  const per = Math.max(nodes, 1);
  let partial = 0;
  let unsupported = 0;
  for (const w of warnings) {
    partial = Math.max(partial, (w.Score.Partial * w.Score.Found) / per);
    unsupported = Math.max(unsupported, (w.Score.Unsupported * w.Score.Found) / per);
  }
  const weight = (w: CheckWarning) => ((w.Score.Unsupported + w.Score.Partial) * w.Score.Found) / per;
  warnings.sort((a, b) => weight(b) - weight(a) || a.Slug.localeCompare(b.Slug));
  const tests = HTML_TESTS.length + 1 + IMAGE_TESTS.length + CSS_PROPERTY_TESTS.length + STYLE_ATTRIBUTE_TESTS.length + CSS_UNIT_TESTS.length + CSS_AT_AND_PSEUDO.length + (scripts > 0 ? 1 : 0);
  return {
    Warnings: warnings,
    Platforms: caniemailPlatforms(),
    Total: { Tests: tests, Nodes: nodes, Supported: 100 - partial - unsupported, Partial: partial, Unsupported: unsupported },
  };
}
