// Templates: the list, a new-template form, and the editor (pages/template-editor.ts).
import type { AppContext } from '../../../domain/app-context.js';
import { ApiError } from '../../../domain/errors.js';
import { createTemplate, listTemplates } from '../../../domain/templates/store.js';
import { html } from '../html.js';
import { csrf, page, when } from '../layout.js';
import { redirectWith, type ConsoleRouter } from '../router.js';
import { registerLayouts } from './layouts.js';
import { registerTemplateEditor } from './template-editor.js';

export function registerTemplates(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/templates', async (c) => {
    const { rows } = await listTemplates(ctx.db, c.server.id, { count: 500, offset: 0, type: 'Standard' });
    const admin = c.session.user.role === 'admin';
    const base = `/console/s/${c.server.id}/templates`;
    const layouts = `/console/s/${c.server.id}/layouts`;
    const body = html`<nav class="subtabs" aria-label="Templates and layouts"><a href="${base}" aria-current="page">Templates</a><a href="${layouts}">Layouts</a></nav>
<table class="list"><thead><tr><th scope="col">Name</th><th scope="col">Alias</th><th scope="col">Layout</th><th scope="col">Updated</th></tr></thead><tbody>
${rows.map((t) => html`<tr><td><a href="${base}/${t.id}">${t.name}</a></td><td><code>${t.alias ?? ''}</code></td><td>${t.layout_template ? html`<a href="${layouts}">${t.layout_template}</a>` : ''}</td><td class="nowrap">${when(t.updated_at)}</td></tr>`)}
</tbody></table>${rows.length === 0 ? html`<p class="empty">No templates yet.</p>` : ''}
${admin ? html`<h2>New template</h2><form method="post" action="${base}/create" class="stack narrow">${csrf(c.session)}
<label for="t-name">Name</label><input id="t-name" name="name" required maxlength="200">
<label for="t-alias">Alias (optional)</label><input id="t-alias" name="alias" maxlength="100">
<input type="hidden" name="type" value="Standard">
<button type="submit">Create and edit</button></form>` : ''}`;
    return page(c.frame('Templates', 'templates'), body);
  });

  r.action('/console/s/:sid/templates/create', async (c) => {
    const layout = c.body.type === 'Layout';
    try {
      const t = await createTemplate(ctx, c.server.id, {
        Name: c.body.name,
        Alias: c.body.alias || null,
        TemplateType: layout ? 'Layout' : 'Standard',
        Subject: layout ? null : 'Hello {{name}}',
        HtmlBody: layout ? '<html><body>{{{@content}}}</body></html>' : '<p>Hello {{name}}</p>',
        TextBody: layout ? '{{{@content}}}' : 'Hello {{name}}',
      });
      return redirectWith(c.reply, `/console/s/${c.server.id}/templates/${t.id}`, { notice: 'Template created.' });
    } catch (err) {
      if (err instanceof ApiError) return redirectWith(c.reply, `/console/s/${c.server.id}/${layout ? 'layouts' : 'templates'}`, { error: err.message });
      throw err;
    }
  });

  registerLayouts(r, ctx);
  registerTemplateEditor(r, ctx);
}
