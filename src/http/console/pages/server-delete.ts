// Deleting a server: a confirmation page first (a GET that changes nothing) on which the server's name is
// typed, then a POST carrying the session's CSRF token, admins only (the router checks both). The same domain
// call as DELETE /servers/{id}: its tokens are refused at once, and everything it owns goes with it.
import { adminsOnly } from '../confirm-page.js';
import type { AppContext } from '../../../domain/app-context.js';
import { deleteAccountServer, getAccountServer, type ServerRow } from '../../../domain/servers/account-servers.js';
import { aboveForm, besideField, invalidAttrs, type FormError } from '../form-errors.js';
import { html } from '../html.js';
import { csrf, page } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { rowIdOf } from './row-id.js';

function confirmPage(c: PageCall, row: ServerRow, error: FormError | null, typed: string): string {
  const base = `/console/servers/${row.id}`;
  const body = html`<div class="card danger"><p>Delete the server <strong>${row.name}</strong> (${row.delivery_type})?</p>
<p>Its tokens stop working at once. Its messages, streams, templates, webhooks, suppressions and statistics are deleted with it. This cannot be undone.</p>
${aboveForm(error)}<form method="post" action="${base}/delete" class="stack narrow">${csrf(c.session)}
<label for="confirm-name">Type the server's name to confirm</label>
<input id="confirm-name" name="confirm" type="text" autocomplete="off" spellcheck="false" value="${typed}"${invalidAttrs(error, 'confirm')}>${besideField(error, 'confirm')}
<div class="buttons"><button type="submit" class="danger">Delete this server</button> <a href="${base}">Cancel</a></div></form></div>`;
  return page({ ...c.frame(`Delete server ${row.name}?`, 'servers'), server: { id: row.id, name: row.name, delivery_type: row.delivery_type } }, body);
}

export function registerServerDelete(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/servers/:id/delete', async (c) => {
    adminsOnly(c.session);
    const row = await getAccountServer(ctx.db, c.session.user.accountId, rowIdOf(c.params.id));
    return confirmPage(c, row, null, '');
  });

  r.action('/console/servers/:id/delete', async (c) => {
    const row = await getAccountServer(ctx.db, c.session.user.accountId, rowIdOf(c.params.id));
    const typed = (c.body.confirm ?? '').slice(0, 300);
    if (typed.trim() !== row.name) {
      c.reply.status(422);
      return confirmPage(c, row, { field: 'confirm', message: `Type the name ${row.name} exactly to delete this server.` }, typed);
    }
    await deleteAccountServer(ctx, c.session.user.accountId, row.id);
    return redirectWith(c.reply, '/console/servers', { notice: `Server ${row.name} deleted.` });
  });
}
