// tier: unit
// The work of a render is bounded (render.ts, RenderBudget): nested loops that print nothing stop at the step
// budget instead of running for minutes, and a real template stays far inside it. The tests named TIMED
// also bound the milliseconds that takes, in the perf tier (test/helpers/timing.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTemplate } from '../../../src/domain/templates/parse.js';
import { RENDER_STEP_BUDGET, RenderBudget, RenderBudgetError, renderTemplate } from '../../../src/domain/templates/render.js';
import { renderStoredTemplate } from '../../../src/domain/templates/render-message.js';
import type { TemplateRow } from '../../../src/domain/templates/store.js';
import { assertWithin, LEFT_TO_PERF, TIMED } from '../../helpers/timing.js';

const items = Array.from({ length: 30 }, (_, i) => ({ i }));
const nested = (depth: number, inner = '') => '{{#each a}}'.repeat(depth) + inner + '{{/each}}'.repeat(depth);

/** Runs `fn`, expecting RenderBudgetError; answers how long it took. */
function refusedWithin(fn: () => unknown): number {
  const started = performance.now();
  assert.throws(fn, (err: unknown) => err instanceof RenderBudgetError && /too much work/.test((err as Error).message));
  return performance.now() - started;
}

describe('render budget', () => {
  it('stops six nested {{#each}} over 30 items (729 million iterations that print nothing) within the budget' + TIMED, LEFT_TO_PERF, () => {
    // Generous for a loaded machine: unbounded, this render ran for 21-25 s.
    const ms = refusedWithin(() => renderTemplate(nested(6), { a: items }));
    assertWithin(ms, 1000, 'refused after');
  });

  it('stops a missing name looked up through 98 nested scopes, each scope searched counting as a step' + TIMED, LEFT_TO_PERF, () => {
    let model: Record<string, unknown> = { l: Array.from({ length: 100_000 }, () => 1) };
    const root = model;
    for (let i = 0; i < 98; i++) model = (model.o = {}) as Record<string, unknown>;
    const source = '{{#o}}'.repeat(98) + '{{#each l}}' + '{{missing}}'.repeat(20) + '{{/each}}' + '{{/o}}'.repeat(98);
    const ms = refusedWithin(() => renderTemplate(source, root));
    assertWithin(ms, 1000, 'refused after');
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

  it('shares one budget across a message: subject, bodies and layout together', async () => {
    // Each part alone needs about 137,000 steps (27,930 iterations, 931 sections, 54,000 values each found in
    // the innermost scope); together they run out of 200,000.
    const half = nested(3, '{{i}}{{i}}');
    const budget = new RenderBudget(200_000);
    renderTemplate(half, { a: items }, { budget });
    assert.throws(() => renderTemplate(half, { a: items }, { budget }), RenderBudgetError);
    const row = { subject: 'Hi', html_body: nested(6), text_body: null } as unknown as TemplateRow;
    const threads = { threads: 1, run: () => Promise.reject(new Error('no worker thread expected')) };
    await assert.rejects(renderStoredTemplate(threads, row, null, { a: items }), /could not be rendered: The template does too much work/);
  });

  it('the longest render the step budget allows is short: every costly step is counted' + TIMED, LEFT_TO_PERF, () => {
    // The CPU backstop set far away, so that the steps alone must stop each render; each stops within a bound
    // that is many times what was measured (11-42 ms on the loaded development machine). Before dotted paths
    // and escaping were counted, the deep path ran to the backstop and the escaping to the output cap.
    let deep: Record<string, unknown> = {};
    const deepRoot = deep;
    for (let i = 0; i < 5000; i++) deep = (deep.x = {}) as Record<string, unknown>;
    let scopes: Record<string, unknown> = { l: Array.from({ length: 100_000 }, () => 1) };
    const scopesRoot = scopes;
    for (let i = 0; i < 98; i++) scopes = (scopes.o = {}) as Record<string, unknown>;
    const keys = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
    const cases: Array<[string, string, unknown]> = [
      ['six nested loops', nested(6), { a: items }],
      ['a path 5,000 names deep', '{{#each a}}' + `{{x${'.x'.repeat(4999)}}}`.repeat(20) + '{{/each}}', { ...deepRoot, a: Array.from({ length: 100_000 }, () => 1) }],
      ['escaping', '{{#each a}}{{x}}{{/each}}', { x: '<'.repeat(10_000), a: Array.from({ length: 1000 }, () => 1) }],
      ['names missed through 98 scopes', '{{#o}}'.repeat(98) + '{{#each l}}' + '{{missing}}'.repeat(20) + '{{/each}}' + '{{/o}}'.repeat(98), scopesRoot],
      ['an object of 100,000 keys, twice', '{{#each k}}{{/each}}{{#each k}}{{/each}}{{#each k}}{{/each}}', { k: keys }],
    ];
    for (const [name, source, model] of cases) {
      // The least of three runs: other processes on the machine only add to a render's CPU time.
      const runs = [0, 1, 2].map(() => {
        const cpu = process.cpuUsage();
        assert.throws(() => renderTemplate(source, model, { budget: new RenderBudget(RENDER_STEP_BUDGET, 10_000) }), /more than 250000 rendering steps/, name);
        const used = process.cpuUsage(cpu);
        return (used.user + used.system) / 1000;
      });
      const ms = Math.min(...runs);
      assertWithin(ms, 250, `${name}, CPU, least of runs ${runs.map((r) => r.toFixed(0)).join(', ')}`);
    }
  });

  it('parses a megabyte of tags in linear time (positions are counted once, not from the top for each tag)' + TIMED, LEFT_TO_PERF, () => {
    const source = '{{a}}\n'.repeat(170_000);
    const started = performance.now();
    assert.equal(parseTemplate(source).length, 340_000);
    const ms = performance.now() - started;
    // Counting lines from the top for each tag took minutes here; linear, it is a fraction of a second.
    assertWithin(ms, 10_000, 'parse');
  });
});
