// The template editor. The preview is rendered by the server's own renderer (domain/templates/validate, as
// POST /templates/validate) against a test model, and shown in a sandboxed frame that the form posts into
// (so the rendered HTML gets the message-body policy, not the console's); the page's script re-posts it as
// you type and shows validation errors beside their field.
import type { AppContext } from '../../../domain/app-context.js';
import { ApiError, ErrorCode, httpStatusFor, ServiceBusy } from '../../../domain/errors.js';
import { getTemplate, listTemplates, updateTemplate, type TemplateRow } from '../../../domain/templates/store.js';
import { renderTemplate, TemplateError } from '../../../domain/templates/render.js';
import { validateTemplate } from '../../../domain/templates/validate.js';
import { html, type Html } from '../html.js';
import { csrf, page } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { bodyCsp } from './message.js';
import { layoutUsers } from '../../../domain/templates/layout-users.js';
import { sendTest, sendTestFields } from './template-send-test.js';

const PARTS = [
  ['subject', 'Subject', 'Subject'],
  ['htmlbody', 'HtmlBody', 'HTML body'],
  ['textbody', 'TextBody', 'Text body'],
] as const;
type Part = (typeof PARTS)[number][1];
type Validation = Awaited<ReturnType<typeof validateTemplate>>;
interface PartResult {
  ContentIsValid: boolean;
  ValidationErrors: Array<{ Message: string; Line: number | null; CharacterPosition: number | null }>;
  RenderedContent: string | null;
}
/** One part's result (validate.ts returns the parts under their names beside the summary fields). */
const partOf = (v: Validation | null | undefined, part: Part): PartResult | null => ((v as unknown as Record<string, PartResult | null> | null | undefined)?.[part] ?? null);

function parseModel(text: string | undefined): { model?: unknown; error?: string } {
  if (!text || text.trim() === '') return {};
  try {
    return { model: JSON.parse(text) };
  } catch (err) {
    return { error: `The test model is not JSON: ${(err as Error).message}` };
  }
}

function check(ctx: AppContext, c: PageCall, t: TemplateRow, model: unknown): Promise<Validation> {
  return validateTemplate(ctx.db, ctx.threads, c.server.id, {
    Subject: t.template_type === 'Layout' ? null : (c.body.subject ?? ''),
    HtmlBody: c.body.htmlbody ?? '',
    TextBody: c.body.textbody ?? '',
    TemplateType: t.template_type,
    LayoutTemplate: c.body.layout || null,
    TestRenderModel: model,
  });
}

/** What a layout's preview shows where a template's body goes (a layout alone renders its content empty). */
const SAMPLE_CONTENT =
  '<div style="border:2px dashed #9ca3af;border-radius:6px;padding:16px;margin:8px 0;color:#6b7280;font:14px sans-serif">The body of a template that uses this layout goes here.</div>';

/** The preview frame's HTML: the renderer's output; a layout is rendered around the sample body. */
function previewHtml(t: TemplateRow, v: Validation, source: string, model: unknown): string {
  const h = partOf(v, 'HtmlBody');
  if (!h?.ContentIsValid) return h?.RenderedContent ?? html`<p>The HTML body does not render: ${(h?.ValidationErrors ?? []).map((e) => e.Message).join('; ')}</p>`.text;
  if (t.template_type !== 'Layout') return h.RenderedContent ?? '';
  try {
    return renderTemplate(source, model ?? {}, { html: true, content: SAMPLE_CONTENT });
  } catch (err) {
    if (err instanceof TemplateError) throw new ApiError(ErrorCode.TemplateInvalidSyntax, `The HTML body could not be rendered with the test model: ${err.message}`);
    throw err;
  }
}

/** A preview or check refused as a whole (a render over its budget, render.ts): 422 with the reason. */
async function refusable<T>(c: PageCall, run: () => Promise<T>, refused: (err: ApiError) => T): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // 503 with Retry-After when the CSS inlining threads are busy (ServiceBusy, as the API answers it), else 422.
    if (err.retryAfter !== undefined) c.reply.header('retry-after', String(err.retryAfter));
    c.reply.status(err instanceof ServiceBusy ? httpStatusFor(err.errorCode) : (err.status ?? 422));
    return refused(err);
  }
}

function errorsOf(v: Validation | null, part: Part): Html {
  const r = partOf(v, part);
  return html`<ul class="field-errors" id="errors-${part}" aria-live="polite">${(r?.ValidationErrors ?? []).map((e) => html`<li>${e.Message}${e.Line !== null ? ` (line ${e.Line}, position ${e.CharacterPosition})` : ''}</li>`)}</ul>`;
}

async function editor(ctx: AppContext, c: PageCall, t: TemplateRow, o: { values?: Record<string, string>; validation?: Validation | null; error?: string; notice?: string } = {}): Promise<string> {
  const v = o.values ?? { subject: t.subject ?? '', htmlbody: t.html_body ?? '', textbody: t.text_body ?? '', layout: t.layout_template ?? '', name: t.name, model: '' };
  const layouts = t.template_type === 'Standard' ? (await listTemplates(ctx.db, c.server.id, { count: 500, offset: 0, type: 'Layout' })).rows : [];
  const admin = c.session.user.role === 'admin';
  const base = `/console/s/${c.server.id}/templates/${t.id}`;
  const model = o.values?.model ?? JSON.stringify((await validateTemplate(ctx.db, ctx.threads, c.server.id, { Subject: t.subject, HtmlBody: t.html_body, TextBody: t.text_body, TemplateType: t.template_type, LayoutTemplate: t.layout_template }).catch(() => null))?.SuggestedTemplateModel ?? {}, null, 2);
  const body = html`<form method="post" action="${base}/save" class="editor" id="template-form" data-check="${base}/check">${csrf(c.session)}
<div class="editor-fields">
<label for="t-name">Name</label><input id="t-name" name="name" value="${v.name}" required maxlength="200"${admin ? '' : html` readonly`}>
${layouts.length ? html`<label for="t-layout">Layout</label><select id="t-layout" name="layout"><option value="">none</option>${layouts.map((l) => html`<option value="${l.alias ?? ''}"${v.layout === l.alias ? html` selected` : ''}>${l.name}</option>`)}</select>` : ''}
${PARTS.filter(([, p]) => !(t.template_type === 'Layout' && p === 'Subject')).map(
  ([name, part, label]) => html`<label for="t-${name}">${label}</label>${
    part === 'Subject' ? html`<input id="t-${name}" name="${name}" value="${v[name] ?? ''}" data-preview>` : html`<textarea id="t-${name}" name="${name}" rows="${part === 'HtmlBody' ? 12 : 6}" data-preview spellcheck="false">${v[name] ?? ''}</textarea>`
  }${errorsOf(o.validation ?? null, part)}`,
)}
<label for="t-model">Test model (JSON)</label><textarea id="t-model" name="model" rows="6" data-preview spellcheck="false">${model}</textarea>
<div class="buttons"><button type="submit" formaction="${base}/preview" formtarget="template-preview" id="preview-button">Preview</button>${admin ? html` <button type="submit" id="save-button">Save</button>` : ''}</div>
${admin && t.template_type === 'Standard' ? await sendTestFields(ctx, c, base, v) : ''}${t.template_type === 'Layout' ? await usedBy(ctx, c, t) : ''}
</div>
<div class="editor-preview">${t.template_type === 'Layout' ? html`<p class="muted">Preview: the layout around a sample body.</p>` : html`<p>Subject: <strong id="rendered-subject">${partOf(o.validation, 'Subject')?.RenderedContent ?? ''}</strong></p>`}
<iframe name="template-preview" id="template-preview" class="preview" title="Rendered HTML preview" sandbox src="${base}/preview"></iframe></div>
</form>`;
  const title = t.template_type === 'Layout' ? `Layout: ${t.name}` : `Template: ${t.name}`;
  return page({ ...c.frame(title, 'templates'), ...(o.error ? { error: o.error } : {}), ...(o.notice ? { notice: o.notice } : {}) }, body);
}

/** A layout's editor names the templates that use it: a change here changes each of their messages. */
async function usedBy(ctx: AppContext, c: PageCall, t: TemplateRow): Promise<Html> {
  const users = (await layoutUsers(ctx.db, c.server.id)).get(t.alias ?? '') ?? [];
  return html`<h2>Used by</h2>${users.length ? html`<ul class="used-by">${users.map((u) => html`<li><a href="/console/s/${c.server.id}/templates/${u.id}">${u.name}</a></li>`)}</ul>` : html`<p class="muted">No template uses this layout yet.</p>`}`;
}

export function registerTemplateEditor(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/templates/:tid', async (c) => editor(ctx, c, await getTemplate(ctx.db, c.server.id, c.params.tid!)));

  // The frame before the first preview: the stored template rendered with its suggested model.
  r.page('/console/s/:sid/templates/:tid/preview', async (c) => {
    const t = await getTemplate(ctx.db, c.server.id, c.params.tid!);
    const v = await validateTemplate(ctx.db, ctx.threads, c.server.id, { HtmlBody: t.html_body ?? '', TemplateType: t.template_type, LayoutTemplate: t.layout_template });
    c.reply.header('content-security-policy', bodyCsp(false)).header('x-frame-options', 'SAMEORIGIN');
    return previewHtml(t, v, t.html_body ?? '', v.SuggestedTemplateModel);
  });

  // Previews change nothing, so viewers may use them (the CSRF token is still required).
  r.action(
    '/console/s/:sid/templates/:tid/preview',
    async (c) => {
      const t = await getTemplate(ctx.db, c.server.id, c.params.tid!);
      const { model, error } = parseModel(c.body.model);
      c.reply.header('content-security-policy', bodyCsp(false)).header('x-frame-options', 'SAMEORIGIN');
      if (error) return html`<p>${error}</p>`.text;
      return refusable(
        c,
        async () => previewHtml(t, await check(ctx, c, t, model), c.body.htmlbody ?? '', model),
        (err) => html`<p>${err.message}</p>`.text,
      );
    },
    { adminOnly: false, bodyLimit: 5 * 1024 * 1024 },
  );

  r.action(
    '/console/s/:sid/templates/:tid/check',
    async (c) => {
      const t = await getTemplate(ctx.db, c.server.id, c.params.tid!);
      const { model, error } = parseModel(c.body.model);
      const json = (body: object) => c.reply.type('application/json').send(body);
      return refusable(
        c,
        async () => json({ modelError: error ?? null, result: error ? null : await check(ctx, c, t, model) }),
        (err) => json({ ErrorCode: err.errorCode, Message: err.message, modelError: null, result: null }),
      );
    },
    { adminOnly: false, bodyLimit: 5 * 1024 * 1024 },
  );

  // Sends the saved template; the page comes back with the form as it was (unsaved edits are kept).
  r.action(
    '/console/s/:sid/templates/:tid/send-test',
    async (c) => {
      const t = await getTemplate(ctx.db, c.server.id, c.params.tid!);
      const { model, error } = parseModel(c.body.model);
      const out = error ? { error } : await sendTest(ctx, c, t, model);
      if (out.error) c.reply.status(422);
      return editor(ctx, c, t, { values: c.body, ...out });
    },
    { bodyLimit: 5 * 1024 * 1024 },
  );

  r.action(
    '/console/s/:sid/templates/:tid/save',
    async (c) => {
      const t = await getTemplate(ctx.db, c.server.id, c.params.tid!);
      const { model } = parseModel(c.body.model);
      let validation: Validation | null = null;
      try {
        validation = await check(ctx, c, t, model ?? undefined);
        if (!validation.AllContentIsValid) throw new ApiError(ErrorCode.TemplateInvalidSyntax, 'The template has errors; they are shown beside each part. Nothing was saved.');
        await updateTemplate(ctx, c.server.id, String(t.id), {
          Name: c.body.name,
          Subject: t.template_type === 'Layout' ? undefined : (c.body.subject ?? ''),
          HtmlBody: c.body.htmlbody ?? '',
          TextBody: c.body.textbody ?? '',
          LayoutTemplate: t.template_type === 'Standard' ? (c.body.layout ?? '') : undefined,
        });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        c.reply.status(422);
        return editor(ctx, c, t, { values: c.body, validation, error: err.message });
      }
      return redirectWith(c.reply, `/console/s/${c.server.id}/templates/${t.id}`, { notice: 'Template saved.' });
    },
    { bodyLimit: 5 * 1024 * 1024 },
  );
}
