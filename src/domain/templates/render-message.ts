// Turns a stored Standard template (and its layout) plus a TemplateModel into an ordinary message's Subject,
// HtmlBody and TextBody. A part that fails to render refuses the whole message (1122): never a half-rendered
// mail. The HTML escaping applies to HtmlBody only; Subject and TextBody are plain text.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { ApiError, ErrorCode } from '../errors.js';
import { inlineCssOffLoop, type CssThreads, type InlineOptions } from './inline-css.js';
import { RenderBudget, renderTemplate, TemplateError } from './render.js';
import { findTemplate, type TemplateRow } from './store.js';

export interface RenderedMessage {
  subject: string;
  htmlBody: string | null;
  textBody: string | null;
}

export interface TemplateRef {
  TemplateId?: number | null;
  TemplateAlias?: string | null;
}

/** Loads the template a send names, and its layout; refuses layouts and unknown templates. */
export async function loadTemplateForSending(db: Kysely<Database>, serverId: number, ref: TemplateRef) {
  const key = ref.TemplateId ?? ref.TemplateAlias;
  if (key === null || key === undefined || key === '') {
    throw new ApiError(ErrorCode.TemplateFieldRequired, 'Either TemplateId or TemplateAlias is required.');
  }
  if (ref.TemplateAlias !== undefined && ref.TemplateAlias !== null && /^\d+$/.test(ref.TemplateAlias)) {
    throw new ApiError(ErrorCode.TemplateNotFound, `The template alias '${ref.TemplateAlias}' was not found.`);
  }
  const template = await findTemplate(db, serverId, key);
  if (!template || template.active !== 1) throw new ApiError(ErrorCode.TemplateNotFound, `The template '${key}' was not found.`);
  if (template.template_type === 'Layout') throw new ApiError(ErrorCode.TemplateTypeMismatch, `The template '${key}' is a layout; layouts cannot be sent.`);
  const layout = template.layout_template ? await findTemplate(db, serverId, template.layout_template) : undefined;
  return { template, layout: layout ?? null };
}

const refusal = (name: string, err: unknown): unknown =>
  err instanceof TemplateError ? new ApiError(ErrorCode.TemplateInvalidSyntax, `The template's ${name} could not be rendered: ${err.message}`) : err;

function part(name: string, run: () => string): string {
  try {
    return run();
  } catch (err) {
    throw refusal(name, err);
  }
}

/** Renders content, then wraps it in the layout's matching part when the layout has one. */
function body(name: string, source: string | null, layoutSource: string | null | undefined, model: unknown, html: boolean, budget: RenderBudget): string | null {
  if (source === null || source === '') return null;
  return part(name, () => {
    const content = renderTemplate(source, model, { html, budget });
    return layoutSource ? renderTemplate(layoutSource, model, { html, content, budget }) : content;
  });
}

/** `threads`: the pool that inlines the CSS off the event loop (inline-css.ts); `opts.waitForRoom` there. */
export async function renderStoredTemplate(
  threads: CssThreads,
  template: TemplateRow,
  layout: TemplateRow | null,
  model: unknown,
  opts: { inlineCss?: boolean } & Pick<InlineOptions, 'waitForRoom'> = {},
): Promise<RenderedMessage> {
  // The message's parts and layouts share one render budget (render.ts, RenderBudget).
  const budget = new RenderBudget();
  const subject = part('Subject', () => renderTemplate(template.subject ?? '', model, { html: false, budget }));
  let htmlBody = body('HtmlBody', template.html_body, layout?.html_body, model, true, budget);
  const textBody = body('TextBody', template.text_body, layout?.text_body, model, false, budget);
  if (htmlBody !== null && opts.inlineCss !== false) {
    htmlBody = await inlineCssOffLoop(threads, htmlBody, { waitForRoom: opts.waitForRoom }).catch((err: unknown) => {
      throw refusal('HtmlBody', err);
    });
  }
  return { subject, htmlBody, textBody };
}
