// A server's page: every setting PUT /servers/{id} takes, the inbound address (read-only: it is made from the
// server's hash), its tokens, and the way to delete it. Saving sends the domain only the fields that changed,
// as a PUT naming just those would.
import type { AppContext } from '../../../domain/app-context.js';
import { getAccountServer, updateAccountServer, type ServerRow } from '../../../domain/servers/account-servers.js';
import { readLegacyHooks } from '../../../domain/servers/legacy-hooks.js';
import { serverView } from '../../../domain/servers/server-view.js';
import { listServerTokens } from '../../../domain/tokens/server-tokens.js';
import { formError, type FormError } from '../form-errors.js';
import { html } from '../html.js';
import { page } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { formValuesFrom, formValuesOf, serverFieldOf, serverForm, serverInput, type ServerFormValues } from './server-form.js';
import { rowIdOf } from './row-id.js';
import { tokenList } from './tokens.js';

async function viewOf(ctx: AppContext, row: ServerRow) {
  return serverView(row, ctx.config, [], await readLegacyHooks(ctx.db, row.id));
}

async function serverPage(ctx: AppContext, c: PageCall, row: ServerRow, values: ServerFormValues, error: FormError | null): Promise<string> {
  const admin = c.session.user.role === 'admin';
  const v = await viewOf(ctx, row);
  const tokens = await listServerTokens(ctx, c.session.user.accountId, row.id);
  const base = `/console/servers/${row.id}`;
  const body = html`<dl class="summary"><dt>Delivery type</dt><dd>${row.delivery_type}</dd>
<dt>Inbound address</dt><dd><code class="wrap" id="inbound-address">${v.InboundAddress}</code></dd>
<dt>Messages</dt><dd><a href="/console/s/${row.id}/activity">Activity of ${row.name}</a></dd></dl>
<section class="card" aria-labelledby="settings"><h2 id="settings">Settings</h2>
${serverForm(ctx, { action: `${base}/settings`, mode: 'edit', values, error, session: c.session, submit: 'Save settings', label: `Settings of ${row.name}` })}</section>
<section class="card" aria-labelledby="tokens"><h2 id="tokens">Server API tokens</h2><p class="muted">Sent as <code>X-Service-Server-Token</code>; shown here by their last characters only.</p>
${tokenList(c.session, `${base}/tokens`, tokens, 'server token', row.name, base)}</section>
${admin ? html`<section class="card danger" aria-labelledby="delete"><h2 id="delete">Delete this server</h2><p>Its messages, streams, templates, webhooks, suppressions and tokens go with it.</p><p><a class="danger-link" href="${base}/delete">Delete ${row.name}…</a></p></section>` : ''}
<p><a href="/console/servers">Back to servers</a></p>`;
  // The header's server picker shows this server.
  return page({ ...c.frame(`Server ${row.name}`, 'servers'), server: { id: row.id, name: row.name, delivery_type: row.delivery_type } }, body);
}

export function registerServerEdit(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/servers/:id', async (c) => {
    const row = await getAccountServer(ctx.db, c.session.user.accountId, rowIdOf(c.params.id));
    return serverPage(ctx, c, row, formValuesOf(await viewOf(ctx, row)), null);
  });

  r.action('/console/servers/:id/settings', async (c) => {
    const row = await getAccountServer(ctx.db, c.session.user.accountId, rowIdOf(c.params.id));
    const before = formValuesOf(await viewOf(ctx, row));
    const values = formValuesFrom(c.body);
    // A field the body lacks is left as it is (a text field absent from a form is not an empty one).
    for (const [k, v] of Object.entries(values)) if (typeof v === 'string' && c.body[k] === undefined) values[k] = before[k]!;
    try {
      const s = await updateAccountServer(ctx, c.session.user.accountId, row.id, serverInput(values, before));
      return redirectWith(c.reply, `/console/servers/${s.id}`, { notice: `Settings of ${s.name} saved.` });
    } catch (err) {
      const error = formError(err, serverFieldOf);
      c.reply.status(422);
      return serverPage(ctx, c, row, values, error);
    }
  });
}
