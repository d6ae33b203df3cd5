// tier: unit
// The work of a render is bounded (render.ts, RenderBudget): nested loops that print nothing stop at the step
// budget in milliseconds instead of running for minutes, and a real template stays far inside it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTemplate } from '../../../src/domain/templates/parse.js';
import { RENDER_STEP_BUDGET, RenderBudget, RenderBudgetError, renderTemplate } from '../../../src/domain/templates/render.js';
import { renderStoredTemplate } from '../../../src/domain/templates/render-message.js';
import type { TemplateRow } from '../../../src/domain/templates/store.js';

const items = Array.from({ length: 30 }, (_, i) => ({ i }));
const nested = (depth: number, inner = '') => '{{#each a}}'.repeat(depth) + inner + '{{/each}}'.repeat(depth);

/** Runs `fn`, expecting RenderBudgetError; answers how long it took. */
function refusedWithin(fn: () => unknown): number {
  const started = performance.now();
  assert.throws(fn, (err: unknown) => err instanceof RenderBudgetError && /too much work/.test((err as Error).message));
  return performance.now() - started;
}

describe('render budget', () => {
  it('stops six nested {{#each}} over 30 items (729 million iterations that print nothing) within the budget', () => {
    // Generous for a loaded machine: unbounded, this render ran for 21-25 s.
    const ms = refusedWithin(() => renderTemplate(nested(6), { a: items }));
    assert.ok(ms < 1000, `took ${ms.toFixed(0)} ms`);
  });

  it('stops a missing name looked up through 98 nested scopes, each scope searched counting as a step', () => {
    let model: Record<string, unknown> = { l: Array.from({ length: 100_000 }, () => 1) };
    const root = model;
    for (let i = 0; i < 98; i++) model = (model.o = {}) as Record<string, unknown>;
    const source = '{{#o}}'.repeat(98) + '{{#each l}}' + '{{missing}}'.repeat(20) + '{{/each}}' + '{{/o}}'.repeat(98);
    const ms = refusedWithin(() => renderTemplate(source, root));
    assert.ok(ms < 1000, `took ${ms.toFixed(0)} ms`);
  });

  it('stops at the CPU budget when the step budget is set beyond it', () => {
    const budget = new RenderBudget(Number.MAX_SAFE_INTEGER, 20);
    assert.throws(() => renderTemplate(nested(6), { a: items }, { budget }), /more than 20 ms of CPU/);
  });

  it('renders a real template (a 1,000-line receipt with 20 fields a line) well inside the budget', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ name: `item <${i}>`, price: i }));
    const source = '<table>{{#each rows}}<tr>' + '<td>{{name}}</td>'.repeat(19) + '<td>{{price}}</td></tr>{{/each}}</table>';
    const out = renderTemplate(source, { rows }, { budget: new RenderBudget(RENDER_STEP_BUDGET / 2) });
    assert.ok(out.includes('<td>item &lt;999&gt;</td><td>999</td>'));
  });

  it('shares one budget across a message: subject, bodies and layout together', () => {
    // Each part alone needs about 137,000 steps (27,930 iterations, 931 sections, 54,000 values each found in
    // the innermost scope); together they run out of 200,000.
    const half = nested(3, '{{i}}{{i}}');
    const budget = new RenderBudget(200_000);
    renderTemplate(half, { a: items }, { budget });
    assert.throws(() => renderTemplate(half, { a: items }, { budget }), RenderBudgetError);
    const row = { subject: 'Hi', html_body: nested(6), text_body: null } as unknown as TemplateRow;
    assert.throws(() => renderStoredTemplate(row, null, { a: items }), /could not be rendered: The template does too much work/);
  });

  it('parses a megabyte of tags in linear time (positions are counted once, not from the top for each tag)', () => {
    const source = '{{a}}\n'.repeat(170_000);
    const started = performance.now();
    assert.equal(parseTemplate(source).length, 340_000);
    const ms = performance.now() - started;
    // Counting lines from the top for each tag took minutes here; linear, it is a fraction of a second.
    assert.ok(ms < 10_000, `took ${ms.toFixed(0)} ms`);
  });
});
