// Streams: create, rename, archive and restore, with the API's rules (domain/streams).
import type { AppContext } from '../../../domain/app-context.js';
import { archiveStream, unarchiveStream } from '../../../domain/streams/archive.js';
import { createStream } from '../../../domain/streams/create-stream.js';
import { listStreams } from '../../../domain/streams/list-streams.js';
import { updateStream } from '../../../domain/streams/update-stream.js';
import { html } from '../html.js';
import { csrf, page, when, whenText } from '../layout.js';
import { redirectWith, type ConsoleRouter } from '../router.js';

export function registerStreams(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/streams', async (c) => {
    const streams = await listStreams(ctx.db, c.server.id, { includeArchived: true });
    const admin = c.session.user.role === 'admin';
    const base = `/console/s/${c.server.id}/streams`;
    const body = html`
<table class="list"><thead><tr><th scope="col">ID</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">State</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${streams.map(
  (s) => html`<tr><td><code>${s.id}</code></td><td>${
    admin
      ? html`<form method="post" action="${base}/${s.id}/rename" class="inline">${csrf(c.session)}<label class="sr-only" for="name-${s.id}">Name of ${s.id}</label><input id="name-${s.id}" name="name" value="${s.name}" required maxlength="100"><button type="submit">Rename</button></form>`
      : s.name
  }<div class="muted small">${s.description ?? ''}</div></td><td>${s.type}</td>
<td>${s.archived_at ? html`archived ${when(s.archived_at)}, purged after ${when(s.expected_purge_at)}` : 'active'}</td>
<td class="actions">${admin ? html`<form method="post" action="${base}/${s.id}/${s.archived_at ? 'restore' : 'archive'}" class="inline">${csrf(c.session)}<button type="submit">${s.archived_at ? 'Restore' : 'Archive'}</button></form>` : ''}</td></tr>`,
)}</tbody></table>
${admin ? html`<h2>New stream</h2><form method="post" action="${base}/create" class="stack narrow">${csrf(c.session)}
<label for="st-name">Name</label><input id="st-name" name="name" required maxlength="100">
<label for="st-type">Type</label><select id="st-type" name="type"><option>Transactional</option><option>Broadcasts</option></select>
<label for="st-desc">Description</label><input id="st-desc" name="description" maxlength="1000">
<button type="submit">Create stream</button></form>` : ''}`;
    return page(c.frame('Streams', 'streams'), body);
  });

  const back = (sid: number) => `/console/s/${sid}/streams`;
  r.action('/console/s/:sid/streams/create', async (c) => {
    const s = await createStream(ctx, c.server.id, { Name: c.body.name, MessageStreamType: c.body.type, Description: c.body.description || undefined });
    return redirectWith(c.reply, back(c.server.id), { notice: `Stream ${s.id} created.` });
  });
  r.action('/console/s/:sid/streams/:id/rename', async (c) => {
    const s = await updateStream(ctx, c.server.id, c.params.id!, { Name: c.body.name });
    return redirectWith(c.reply, back(c.server.id), { notice: `Stream ${s.id} renamed to ${s.name}.` });
  });
  r.action('/console/s/:sid/streams/:id/archive', async (c) => {
    const s = await archiveStream(ctx, c.server.id, c.params.id!);
    return redirectWith(c.reply, back(c.server.id), { notice: `Stream ${s.id} archived; it can be restored until ${whenText(s.expected_purge_at)}.` });
  });
  r.action('/console/s/:sid/streams/:id/restore', async (c) => {
    const s = await unarchiveStream(ctx, c.server.id, c.params.id!);
    return redirectWith(c.reply, back(c.server.id), { notice: `Stream ${s.id} restored.` });
  });
}
