// Layouts: the server's layout templates, each with the templates that use it; a layout opens in the same
// editor as a template (live preview of the layout around a sample body). Linked from the Templates page.
import type { AppContext } from '../../../domain/app-context.js';
import { layoutUsers } from '../../../domain/templates/layout-users.js';
import { listTemplates } from '../../../domain/templates/store.js';
import { html } from '../html.js';
import { csrf, page, when } from '../layout.js';
import type { ConsoleRouter } from '../router.js';

export function registerLayouts(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/layouts', async (c) => {
    const [{ rows }, users] = await Promise.all([listTemplates(ctx.db, c.server.id, { count: 500, offset: 0, type: 'Layout' }), layoutUsers(ctx.db, c.server.id)]);
    const base = `/console/s/${c.server.id}/templates`;
    const body = html`<nav class="subtabs" aria-label="Templates and layouts"><a href="${base}">Templates</a><a href="/console/s/${c.server.id}/layouts" aria-current="page">Layouts</a></nav>
<p class="muted">A layout wraps the templates that name it: its <code>{{{@content}}}</code> is replaced by their body. Changing a layout changes every message of those templates.</p>
<table class="list"><thead><tr><th scope="col">Layout</th><th scope="col">Alias</th><th scope="col">Used by</th><th scope="col">Updated</th></tr></thead><tbody>
${rows.map((l) => {
  const used = users.get(l.alias ?? '') ?? [];
  return html`<tr><td><a href="${base}/${l.id}">${l.name}</a></td><td><code>${l.alias ?? ''}</code></td><td>${used.length ? used.map((u, i) => html`${i ? ', ' : ''}<a href="${base}/${u.id}">${u.name}</a>`) : html`<span class="muted">no template</span>`}</td><td class="nowrap">${when(l.updated_at)}</td></tr>`;
})}
</tbody></table>${rows.length === 0 ? html`<p class="empty">No layouts yet.</p>` : ''}
${c.session.user.role === 'admin' ? html`<h2>New layout</h2><form method="post" action="${base}/create" class="stack narrow">${csrf(c.session)}<input type="hidden" name="type" value="Layout">
<label for="l-name">Name</label><input id="l-name" name="name" required maxlength="200">
<label for="l-alias">Alias (templates name their layout by it)</label><input id="l-alias" name="alias" required maxlength="100">
<button type="submit">Create and edit</button></form>` : ''}`;
    return page(c.frame('Layouts', 'templates'), body);
  });
}
