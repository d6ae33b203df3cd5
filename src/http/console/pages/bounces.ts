// Bounces: the list with the API's filters, each bounce's dump, and activation (the same domain call as PUT
// /bounces/{id}/activate: lifts the suppression when the bounce type allows it).
import type { AppContext } from '../../../domain/app-context.js';
import { activateBounce } from '../../../domain/bounces/activate.js';
import { bounceDump, listBounces, parseBounceId } from '../../../domain/bounces/query.js';
import { BOUNCE_TYPES } from '../../../domain/bounces/types.js';
import { html, query } from '../html.js';
import { csrf, page, when, ISO_DATE } from '../layout.js';
import { redirectWith, type ConsoleRouter } from '../router.js';

const PAGE_SIZE = 50;

export function registerBounces(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/bounces', async (c) => {
    const q = c.query;
    const offset = Math.min(Math.max(Number(q.offset) || 0, 0), 10_000 - PAGE_SIZE);
    const inactive = q.inactive === 'yes' ? true : q.inactive === 'no' ? false : undefined;
    const found = await listBounces(ctx, c.server.id, { count: PAGE_SIZE, offset, type: q.type || undefined, inactive, emailfilter: q.emailfilter || undefined, tag: q.tag || undefined, fromdate: q.fromdate || undefined, todate: q.todate || undefined, messagestream: q.stream || undefined });
    const list = found.Bounces as Array<Record<string, any>>;
    const filters = { type: q.type, inactive: q.inactive, emailfilter: q.emailfilter, tag: q.tag, fromdate: q.fromdate, todate: q.todate, stream: q.stream };
    const admin = c.session.user.role === 'admin';
    const body = html`
<form method="get" class="filters" aria-label="Filters">
  <div class="field"><label for="b-email">Address contains</label><input id="b-email" name="emailfilter" value="${q.emailfilter ?? ''}"></div>
  <div class="field"><label for="b-type">Type</label><select id="b-type" name="type"><option value="">any</option>${Object.keys(BOUNCE_TYPES).map((t) => html`<option${q.type === t ? html` selected` : ''}>${t}</option>`)}</select></div>
  <div class="field"><label for="b-inactive">Inactive</label><select id="b-inactive" name="inactive">${[['', 'either'], ['yes', 'inactive only'], ['no', 'active only']].map(([v, l]) => html`<option value="${v}"${q.inactive === v ? html` selected` : ''}>${l}</option>`)}</select></div>
  <div class="field"><label for="b-tag">Tag</label><input id="b-tag" name="tag" value="${q.tag ?? ''}"></div>
  <div class="field"><label for="b-from">From date</label><input id="b-from" ${ISO_DATE} name="fromdate" value="${q.fromdate ?? ''}"></div>
  <div class="field"><label for="b-to">To date</label><input id="b-to" ${ISO_DATE} name="todate" value="${q.todate ?? ''}"></div>
  <div class="field"><button type="submit">Filter</button></div>
</form>
<p class="muted">${found.TotalCount} ${found.TotalCount === 1 ? 'bounce' : 'bounces'}.</p>
<table class="list"><thead><tr><th scope="col">Bounced</th><th scope="col">Address</th><th scope="col">Type</th><th scope="col">Description</th><th scope="col">Subject</th><th scope="col">Inactive</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${list.map(
  (b) => html`<tr><td class="nowrap">${when(b.BouncedAt)}</td><td>${b.Email}</td><td>${b.Type}</td><td>${b.Description}<div class="muted small">${b.Details}</div></td>
<td>${b.MessageID ? html`<a href="/console/s/${c.server.id}/messages/${b.MessageID}">${b.Subject || '(no subject)'}</a>` : b.Subject}</td><td>${b.Inactive ? 'yes' : 'no'}</td>
<td class="actions">${b.DumpAvailable ? html`<a href="/console/s/${c.server.id}/bounces/${b.ID}/dump">Dump</a>` : ''}
${b.Inactive && b.CanActivate && admin ? html`<form method="post" action="/console/s/${c.server.id}/bounces/${b.ID}/activate" class="inline">${csrf(c.session)}<button type="submit" aria-label="Activate ${b.Email}">Activate</button></form>` : ''}</td></tr>`,
)}</tbody></table>
${list.length === 0 ? html`<p class="empty">No bounces.</p>` : ''}
<nav class="pager" aria-label="Pages">${offset > 0 ? html`<a href="${query({ ...filters, offset: Math.max(offset - PAGE_SIZE, 0) })}">Newer</a>` : ''}${offset + PAGE_SIZE < found.TotalCount ? html`<a href="${query({ ...filters, offset: offset + PAGE_SIZE })}">Older</a>` : ''}</nav>`;
    return page(c.frame('Bounces', 'bounces'), body);
  });

  r.page('/console/s/:sid/bounces/:bid/dump', async (c) => {
    const d = await bounceDump(ctx, c.server.id, parseBounceId(c.params.bid!));
    return page(c.frame('Bounce dump', 'bounces'), html`<p><a href="/console/s/${c.server.id}/bounces">Back to bounces</a></p><pre>${d.Body || '(empty)'}</pre>`);
  });

  r.action('/console/s/:sid/bounces/:bid/activate', async (c) => {
    const out = await activateBounce(ctx, c.server.id, parseBounceId(c.params.bid!));
    return redirectWith(c.reply, `/console/s/${c.server.id}/bounces`, { notice: `${String(out.Bounce.Email)}: ${out.Message}` });
  });
}
