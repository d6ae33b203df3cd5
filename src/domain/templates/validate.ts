// POST /templates/validate: checks each part without saving anything and answers per part
// {ContentIsValid, ValidationErrors[{Message, Line, CharacterPosition}], RenderedContent}, plus the
// SuggestedTemplateModel built from the placeholders used (docs/reference/templates.md, "Validate").
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { ApiError, ErrorCode } from '../errors.js';
import { contentPlaceholders, templateType } from './fields.js';
import { inlineCssOffLoop, type CssThreads } from './inline-css.js';
import { parseTemplate, TemplateError, type TemplateNode } from './parse.js';
import { RenderBudget, RenderBudgetError, renderNodesToString } from './render.js';
import { findTemplate } from './store.js';
import { suggestModel } from './suggest-model.js';

export interface ValidateInput {
  Subject?: string | null;
  HtmlBody?: string | null;
  TextBody?: string | null;
  TestRenderModel?: unknown;
  TemplateType?: string | null;
  LayoutTemplate?: string | null;
  InlineCssForHtmlTestRender?: boolean | null;
}

interface ValidationError {
  Message: string;
  Line: number | null;
  CharacterPosition: number | null;
}

interface PartResult {
  ContentIsValid: boolean;
  ValidationErrors: ValidationError[];
  RenderedContent: string | null;
}

function errorOf(err: unknown): ValidationError {
  if (err instanceof TemplateError) return { Message: err.reason, Line: err.line ?? null, CharacterPosition: err.position ?? null };
  throw err;
}

function parsed(source: string): { nodes?: TemplateNode[]; error?: ValidationError } {
  try {
    return { nodes: parseTemplate(source) };
  } catch (err) {
    return { error: errorOf(err) };
  }
}

/** `threads`: the pool that inlines the CSS for the HtmlBody's test render off the event loop (inline-css.ts). */
export async function validateTemplate(db: Kysely<Database>, threads: CssThreads, serverId: number, input: ValidateInput) {
  const type = templateType(input.TemplateType) ?? 'Standard';
  let layout: { HtmlBody: TemplateNode[] | null; TextBody: TemplateNode[] | null } | null = null;
  if (type === 'Standard' && input.LayoutTemplate) {
    const row = await findTemplate(db, serverId, input.LayoutTemplate);
    if (!row || row.template_type !== 'Layout') throw new ApiError(ErrorCode.TemplateNotFound, `The layout template '${input.LayoutTemplate}' was not found.`);
    layout = {
      HtmlBody: row.html_body ? parseTemplate(row.html_body) : null,
      TextBody: row.text_body ? parseTemplate(row.text_body) : null,
    };
  }
  const parts = { Subject: input.Subject, HtmlBody: input.HtmlBody, TextBody: input.TextBody } as const;
  if (Object.values(parts).every((v) => v === undefined || v === null)) {
    throw new ApiError(ErrorCode.TemplateFieldRequired, 'Provide at least one of Subject, HtmlBody and TextBody.');
  }
  const trees: Partial<Record<keyof typeof parts, TemplateNode[]>> = {};
  const results: Record<string, PartResult | null> = { Subject: null, HtmlBody: null, TextBody: null };
  for (const [name, source] of Object.entries(parts) as [keyof typeof parts, string | null | undefined][]) {
    if (source === undefined || source === null) continue;
    const { nodes, error } = parsed(source);
    const errors = error ? [error] : [];
    if (nodes && type === 'Layout' && name !== 'Subject' && contentPlaceholders(nodes) !== 1) {
      errors.push({ Message: 'A layout must contain {{{@content}}} exactly once, outside any section.', Line: null, CharacterPosition: null });
    }
    if (nodes) trees[name] = nodes;
    results[name] = { ContentIsValid: errors.length === 0, ValidationErrors: errors, RenderedContent: null };
  }
  const used = Object.values(trees);
  if (layout?.HtmlBody) used.push(layout.HtmlBody);
  if (layout?.TextBody) used.push(layout.TextBody);
  const suggested = suggestModel(used);
  const model = input.TestRenderModel ?? suggested;
  // One budget for the whole check (every part and its layout): a render that runs out is refused as a whole,
  // 422 with 1122, rather than answered 200 after the work it was allowed (render.ts, RenderBudget).
  const budget = new RenderBudget();
  for (const [name, nodes] of Object.entries(trees) as [keyof typeof parts, TemplateNode[]][]) {
    const result = results[name]!;
    if (!result.ContentIsValid) continue;
    const html = name === 'HtmlBody';
    try {
      let text = renderNodesToString(nodes, model, { html, content: type === 'Layout' ? '' : undefined, budget });
      const wrap = name === 'Subject' ? null : layout?.[name];
      if (wrap) text = renderNodesToString(wrap, model, { html, content: text, budget });
      if (html && input.InlineCssForHtmlTestRender !== false) text = await inlineCssOffLoop(threads, text);
      result.RenderedContent = text;
    } catch (err) {
      if (err instanceof RenderBudgetError) throw new ApiError(ErrorCode.TemplateInvalidSyntax, `The ${name} could not be rendered with the test model: ${err.message}`);
      result.ContentIsValid = false;
      result.ValidationErrors.push(errorOf(err));
    }
  }
  return {
    AllContentIsValid: Object.values(results).every((r) => r === null || r.ContentIsValid),
    ...results,
    SuggestedTemplateModel: suggested,
  };
}
