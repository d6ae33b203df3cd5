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
}

/** A rendered part may not exceed this (a small template with nested lists can multiply a model). */
export const MAX_RENDERED_CHARS = 10 * 1024 * 1024;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function own(value: unknown, key: string): { found: boolean; value?: unknown } {
  // Own properties only: `{{constructor}}` or `{{__proto__}}` must not reach into prototypes.
  if (value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, key)) {
    return { found: true, value: (value as Record<string, unknown>)[key] };
  }
  return { found: false };
}

function lookup(scopes: unknown[], path: TemplatePath, opts: RenderOptions): unknown {
  if (path.parts[0] === '@content') return opts.content ?? '';
  const start = scopes.length - 1 - path.ups;
  if (start < 0) return undefined;
  if (path.parts.length === 0) return scopes[start];
  let value: unknown;
  let found = false;
  for (let i = start; i >= 0 && !found; i--) {
    const hit = own(scopes[i], path.parts[0]!);
    if (hit.found) {
      found = true;
      value = hit.value;
    }
  }
  for (const part of path.parts.slice(1)) {
    if (!found) break;
    const hit = own(value, part);
    found = hit.found;
    value = hit.value;
  }
  return found ? value : undefined;
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

function renderNodes(nodes: TemplateNode[], scopes: unknown[], opts: RenderOptions, out: Output): void {
  for (const node of nodes) {
    if (node.kind === 'text') {
      out.push(node.text);
    } else if (node.kind === 'value') {
      const text = display(lookup(scopes, node.path, opts));
      out.push(node.raw || opts.html === false ? text : escapeHtml(text));
    } else {
      const value = lookup(scopes, node.path, opts);
      if (node.inverted) {
        if (!truthy(value)) renderNodes(node.children, scopes, opts, out);
      } else if (Array.isArray(value)) {
        for (const item of value) renderNodes(node.children, [...scopes, item], opts, out);
      } else if (node.each) {
        // `{{#each}}` over an object walks its values; over anything else renders nothing.
        if (value !== null && typeof value === 'object') {
          for (const item of Object.values(value)) renderNodes(node.children, [...scopes, item], opts, out);
        }
      } else if (truthy(value)) {
        renderNodes(node.children, [...scopes, value], opts, out);
      }
    }
  }
}

/** Renders already-parsed nodes (used when one template is rendered with many models). */
export function renderNodesToString(nodes: TemplateNode[], model: unknown, opts: RenderOptions = {}): string {
  const out = new Output();
  renderNodes(nodes, [model], opts, out);
  return out.parts.join('');
}

/** Renders `source` with `model`; throws TemplateError (with line/position) on bad syntax. */
export function renderTemplate(source: string, model: unknown, opts: RenderOptions = {}): string {
  return renderNodesToString(parseTemplate(source), model, opts);
}
