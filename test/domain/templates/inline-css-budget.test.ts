// tier: unit
// Inlining CSS (inline-css.ts) costs rules x elements in juice: its work is estimated in one pass and refused
// past INLINE_CSS_BUDGET, quickly and saying why, while a large real newsletter is inlined (issue 27).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INLINE_CSS_BUDGET, inlineCss } from '../../../src/domain/templates/inline-css.js';
import { RenderBudgetError } from '../../../src/domain/templates/render.js';
import { assertWithin, LEFT_TO_PERF, TIMED } from '../../helpers/timing.js';

const page = (rules: number, elements: number, extraCss = '') =>
  `<html><head><style>${Array.from({ length: rules }, (_, i) => `.c${i}, .d${i}{color:red}`).join('')}${extraCss}</style></head><body>${'<p class="c1">a</p>'.repeat(elements)}</body></html>`;
const cpuMs = (fn: () => unknown) => {
  const c = process.cpuUsage();
  fn();
  const u = process.cpuUsage(c);
  return (u.user + u.system) / 1000;
};

describe('inline CSS budget', () => {
  it('inlines a large newsletter (3,000 elements, 250 selectors)' + TIMED, LEFT_TO_PERF, () => {
    let out = '';
    const ms = cpuMs(() => (out = inlineCss(page(125, 2997))));
    assert.match(out, /<p class="c1" style="color: ?red;?">a<\/p>/);
    assert.doesNotMatch(out, /<style>/);
    assertWithin(ms, 2000, 'inlined, CPU');
  });

  it('refuses 1,000 rules over 3,000 elements at once (juice took 0.76 s) and a megabyte of tags, naming the counts' + TIMED, LEFT_TO_PERF, () => {
    for (const [html, counts] of [
      [page(500, 2997), /1000 style rules against 3001 elements/],
      [page(1, 200_000), /2 style rules against 200004 elements/],
    ] as const) {
      const ms = cpuMs(() => assert.throws(() => inlineCss(html), (err: unknown) => err instanceof RenderBudgetError && counts.test((err as Error).message) && /InlineCss false/.test((err as Error).message)));
      assertWithin(ms, 500, 'refused, CPU');
    }
  });

  it('counts top-level selectors only: a media query is one, its rules are not inlined', () => {
    const media = `@media (max-width: 600px) { ${Array.from({ length: 5000 }, (_, i) => `.m${i}, .n${i} {color:blue}`).join(' ')} }`;
    assert.ok(inlineCss(page(10, 2000, media)).includes('@media'));
    assert.throws(() => inlineCss(page(10, 2000), 1000), RenderBudgetError);
    assert.ok(INLINE_CSS_BUDGET >= 774_000, 'a large newsletter fits');
  });
});
