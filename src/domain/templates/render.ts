// Renders Mustachio templates (docs/reference/templates.md, "Template language"): `{{name}}` HTML-escaped,
// `{{{name}}}` raw, dotted paths, `../` parent scopes, `{{#section}}` (truthy values and lists), `{{^section}}`
// inverted, `{{#each list}}...{{/each}}` with `{{.}}`; a missing value renders as nothing. Names resolve like
// Mustache: the first segment is looked up from the innermost scope outwards, the rest inside it.
import { parseTemplate, TemplateError, type TemplateNode, type TemplatePath } from './parse.js';

export { TemplateError, parseTemplate };
export type { TemplateNode };

export interface RenderOptions {
  /** Escape `{{name}}` values for HTML (default true). Subjects and text bodies pass false. */
  html?: boolean;
  /** What `{{{@content}}}` renders as: the rendered body a layout wraps. */
  content?: string;
  /** The work this render may do; pass one budget to every part of a message so they share it. */
  budget?: RenderBudget;
}

/** A rendered part may not exceed this (a small template with nested lists can multiply a model). */
export const MAX_RENDERED_CHARS = 10 * 1024 * 1024;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const SPECIAL = /[&<>"']/;

export function escapeHtml(text: string): string {
  if (!SPECIAL.test(text)) return text;
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/**
 * The work one render may do. The output cap bounds what is printed, not the work: `{{#each}}` nested six deep
 * over a 30-item list is 729 million iterations that print nothing (it held the process for 21-25 s). So every
 * node visited, every loop iteration, every scope searched for a name, every name of a dotted path walked and
 * every ESCAPED_CHARS_PER_STEP characters HTML-escaped is a step, and a render (a message's parts and layouts
 * share one budget) may take RENDER_STEP_BUDGET steps. Each step costs a bounded amount, so the longest render
 * the budget allows holds the event loop briefly: 11-42 ms of CPU for the worst cases in render-budget.test.ts
 * (nested loops, names missed through 98 scopes, paths 5,000 names deep, escaping); an {{#each}} over an object
 * reads its keys first, which costs about 0.4 µs a key (a 300,000-key model: 123 ms, less than parsing that
 * model's JSON took). RENDER_CPU_BUDGET_MS of CPU time is the backstop for a step that costs more than measured
 * (CPU, not wall time: a loaded host must not fail a real template; process CPU, so other threads' work counts
 * too, hence the margin). A real template stays far inside: a 1,000-line receipt of 20 fields a line takes about
 * 100,000 steps. Past either, the render stops with RenderBudgetError, answered as 1122 with HTTP 422. Inlining
 * CSS has its own bound (inline-css.ts).
 */
export const RENDER_STEP_BUDGET = 250_000;
export const RENDER_CPU_BUDGET_MS = 250;

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Characters escaped per step (&, <, >, " and '): a megabyte of '<' takes about 50 ms, a step 0.1-0.3 µs; text
 * without them costs a scan of about 1 ms a megabyte and is not counted. */
const ESCAPED_CHARS_PER_STEP = 4;

/** The clock is read every so many steps: cheap, and far finer than the time budget. */
const CLOCK_EVERY = 1024;

export class RenderBudgetError extends TemplateError {
  constructor(what: string, message = `The template does too much work with this model (${what}); nested sections over long lists multiply: flatten the loops or shorten the lists`) {
    super(message);
    this.name = 'RenderBudgetError';
  }
}

export class RenderBudget {
  private steps = 0;
  private nextClock = CLOCK_EVERY;
  /** Set at the first clock read, CLOCK_EVERY steps in: the first steps cost a bounded few microseconds, and a
   * small render (a Subject, a short body: most renders) reads no clock at all. process.cpuUsage() is a system
   * call; read in the constructor, it was most of the cost of rendering a bulk request's 100,000 Subjects. */
  private deadline = -1;
  constructor(
    private readonly maxSteps = RENDER_STEP_BUDGET,
    private readonly maxMs = RENDER_CPU_BUDGET_MS,
  ) {}
  step(count = 1): void {
    this.steps += count;
    if (this.steps > this.maxSteps) throw new RenderBudgetError(`more than ${this.maxSteps} rendering steps`);
    if (this.steps >= this.nextClock) {
      this.nextClock = this.steps + CLOCK_EVERY;
      const now = cpuMs();
      if (this.deadline < 0) this.deadline = now + this.maxMs;
      else if (now > this.deadline) throw new RenderBudgetError(`more than ${this.maxMs} ms of CPU`);
    }
  }
}

/** The scopes a name is looked up in, innermost first: a chain, so entering a section costs one link. */
interface Scope {
  value: unknown;
  parent: Scope | null;
}

const NOT_FOUND = Symbol('not found');

function own(value: unknown, key: string): unknown {
  // Own properties only: `{{constructor}}` or `{{__proto__}}` must not reach into prototypes.
  if (value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, key)) {
    return (value as Record<string, unknown>)[key];
  }
  return NOT_FOUND;
}

function lookup(scope: Scope, path: TemplatePath, opts: RenderOptions, budget: RenderBudget): unknown {
  if (path.parts[0] === '@content') return opts.content ?? '';
  let start: Scope | null = scope;
  for (let up = 0; up < path.ups && start; up++) start = start.parent;
  if (!start) return undefined;
  if (path.parts.length === 0) return start.value;
  let value: unknown = NOT_FOUND;
  let searched = 0;
  for (let s: Scope | null = start; s && value === NOT_FOUND; s = s.parent, searched++) value = own(s.value, path.parts[0]!);
  // Each scope searched is a step: a missing name in a section nested 100 deep costs 100 lookups.
  budget.step(searched);
  let i = 1;
  for (; i < path.parts.length && value !== NOT_FOUND; i++) value = own(value, path.parts[i]!);
  // And each name of a dotted path walked: `{{x.x.x...}}` thousands deep into a model as deep is one node.
  budget.step(i - 1);
  return value === NOT_FOUND ? undefined : value;
}

function display(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return '';
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

class Output {
  parts: string[] = [];
  length = 0;
  push(text: string): void {
    this.length += text.length;
    if (this.length > MAX_RENDERED_CHARS) {
      throw new TemplateError(`Rendered content exceeds ${MAX_RENDERED_CHARS} characters`);
    }
    this.parts.push(text);
  }
}

function renderNodes(nodes: TemplateNode[], scope: Scope, opts: RenderOptions, out: Output, budget: RenderBudget): void {
  for (const node of nodes) {
    budget.step();
    if (node.kind === 'text') {
      out.push(node.text);
    } else if (node.kind === 'value') {
      const text = display(lookup(scope, node.path, opts, budget));
      if (node.raw || opts.html === false) out.push(text);
      else {
        const escaped = escapeHtml(text);
        // Each character escaped lengthens the text by 3-5: counted after the fact, which bounds the work to the
        // budget plus one value (as long as the model's own).
        const specials = (escaped.length - text.length) / 3;
        if (specials >= ESCAPED_CHARS_PER_STEP) budget.step(Math.floor(specials / ESCAPED_CHARS_PER_STEP));
        out.push(escaped);
      }
    } else {
      const value = lookup(scope, node.path, opts, budget);
      if (node.inverted) {
        if (!truthy(value)) renderNodes(node.children, scope, opts, out, budget);
      } else if (Array.isArray(value)) {
        for (const item of value) {
          budget.step();
          renderNodes(node.children, { value: item, parent: scope }, opts, out, budget);
        }
      } else if (node.each) {
        // `{{#each}}` over an object walks its values; over anything else renders nothing.
        if (value !== null && typeof value === 'object') {
          // Keys, each value read when its turn comes: Object.values of an object of many keys costs three
          // times as much, all of it before the first step could stop the loop.
          const record = value as Record<string, unknown>;
          for (const key of Object.keys(record)) {
            budget.step();
            renderNodes(node.children, { value: record[key], parent: scope }, opts, out, budget);
          }
        }
      } else if (truthy(value)) {
        renderNodes(node.children, { value, parent: scope }, opts, out, budget);
      }
    }
  }
}

/** Renders already-parsed nodes (used when one template is rendered with many models). */
export function renderNodesToString(nodes: TemplateNode[], model: unknown, opts: RenderOptions = {}): string {
  const out = new Output();
  renderNodes(nodes, { value: model, parent: null }, opts, out, opts.budget ?? new RenderBudget());
  return out.parts.join('');
}

/** Renders `source` with `model`; throws TemplateError (with line/position) on bad syntax. */
export function renderTemplate(source: string, model: unknown, opts: RenderOptions = {}): string {
  return renderNodesToString(parseTemplate(source), model, opts);
}
