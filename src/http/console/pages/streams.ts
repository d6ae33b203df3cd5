// Streams: list, create (transactional or broadcasts, ID chosen or derived from the name), edit name and
// description, archive and restore, with the API's rules (domain/streams): a refused value is said beside
// its field with the API's message, the form showing what was typed.
import type { AppContext } from '../../../domain/app-context.js';
import { archiveStream, unarchiveStream } from '../../../domain/streams/archive.js';
import { createStream } from '../../../domain/streams/create-stream.js';
import { listStreams } from '../../../domain/streams/list-streams.js';
import { updateStream } from '../../../domain/streams/update-stream.js';
import { html } from '../html.js';
import { csrf, page, when, whenText } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { besideField, byPrefix, formError, invalidAttrs, type FormError } from '../form-errors.js';

/** Which field a stream refusal is about, from how domain/streams/rules.ts words it. */
const REFUSALS: Array<[string | RegExp, string]> = [
  [/stream Name/, 'name'],
  [/stream Description/, 'description'],
  ['MessageStreamType', 'type'],
  [/stream ID|Stream IDs|ID '/, 'id'],
];

interface State {
  /** The form refused: 'new', or the ID of the stream whose edit was refused. */
  form?: string;
  values?: Record<string, string>;
  error?: FormError;
}

async function streamsPage(ctx: AppContext, c: PageCall, st: State = {}): Promise<string> {
  const streams = await listStreams(ctx.db, c.server.id, { includeArchived: true });
  const admin = c.session.user.role === 'admin';
  const base = `/console/s/${c.server.id}/streams`;
  const mine = (form: string) => (st.form === form ? st : {});
  const val = (form: string, k: string, stored: string) => (st.form === form && st.values ? st.values[k] ?? '' : stored);
  const edit = (s: (typeof streams)[number]) => {
    const e = mine(s.id).error;
    return html`<details${st.form === s.id ? html` open` : ''}><summary>Edit</summary><form method="post" action="${base}/${s.id}/edit" class="stack" novalidate>${csrf(c.session)}
<label for="name-${s.id}">Name</label><input id="name-${s.id}" name="name" value="${val(s.id, 'name', s.name)}" maxlength="100"${invalidAttrs(e, 'name')}>${besideField(e, 'name')}
<label for="desc-${s.id}">Description</label><input id="desc-${s.id}" name="description" value="${val(s.id, 'description', s.description ?? '')}" maxlength="1000"${invalidAttrs(e, 'description')}>${besideField(e, 'description')}
<button type="submit">Save</button></form></details>`;
  };
  const e = mine('new').error;
  const body = html`
<table class="list labelled"><thead><tr><th scope="col">ID</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">State</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${streams.map(
  (s) => html`<tr><td><code>${s.id}</code></td><td><strong>${s.name}</strong><div class="muted small">${s.description ?? ''}</div>${admin ? edit(s) : ''}</td><td data-label="Type">${s.type}</td>
<td data-label="State">${s.archived_at ? html`archived ${when(s.archived_at)}, purged after ${when(s.expected_purge_at)}` : s.is_default === 1 ? 'active (default)' : 'active'}</td>
<td class="actions">${admin && s.is_default !== 1 ? html`<form method="post" action="${base}/${s.id}/${s.archived_at ? 'restore' : 'archive'}" class="inline">${csrf(c.session)}<button type="submit">${s.archived_at ? 'Restore' : 'Archive'}</button></form>` : ''}</td></tr>`,
)}</tbody></table>
${admin ? html`<h2>New stream</h2><form method="post" action="${base}/create" class="stack narrow" novalidate>${csrf(c.session)}
<label for="st-name">Name</label><input id="st-name" name="name" maxlength="100" value="${val('new', 'name', '')}"${invalidAttrs(e, 'name')}>${besideField(e, 'name')}
<label for="st-type">Type</label><select id="st-type" name="type"${invalidAttrs(e, 'type')}>${['Transactional', 'Broadcasts'].map((t) => html`<option${val('new', 'type', 'Transactional') === t ? html` selected` : ''}>${t}</option>`)}</select>${besideField(e, 'type')}
<label for="st-id">ID (empty: made from the name)</label><input id="st-id" name="id" maxlength="100" value="${val('new', 'id', '')}"${invalidAttrs(e, 'id')}>${besideField(e, 'id')}
<label for="st-desc">Description</label><input id="st-desc" name="description" maxlength="1000" value="${val('new', 'description', '')}"${invalidAttrs(e, 'description')}>${besideField(e, 'description')}
<button type="submit">Create stream</button></form>` : ''}`;
  return page(c.frame('Streams', 'streams'), body);
}

export function registerStreams(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/streams', (c) => streamsPage(ctx, c));

  const back = (sid: number) => `/console/s/${sid}/streams`;
  const refused = (c: PageCall, form: string, err: unknown) => {
    const error = formError(err, byPrefix(REFUSALS, 'name'));
    c.reply.status(422);
    return streamsPage(ctx, c, { form, values: c.body, error });
  };
  r.action('/console/s/:sid/streams/create', async (c) => {
    try {
      const s = await createStream(ctx, c.server.id, { Name: c.body.name ?? '', MessageStreamType: c.body.type, ID: c.body.id?.trim() || undefined, Description: c.body.description || undefined });
      return redirectWith(c.reply, back(c.server.id), { notice: `Stream ${s.id} created.` });
    } catch (err) {
      return refused(c, 'new', err);
    }
  });
  r.action('/console/s/:sid/streams/:id/edit', async (c) => {
    try {
      const s = await updateStream(ctx, c.server.id, c.params.id!, { Name: c.body.name ?? '', Description: c.body.description ?? '' });
      return redirectWith(c.reply, back(c.server.id), { notice: `Stream ${s.id} saved.` });
    } catch (err) {
      return refused(c, c.params.id!, err);
    }
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
