// "Delete all" of a Sandbox server's inbox: a confirmation page first (a GET that changes
// nothing), then a POST carrying the session's CSRF token, admins only (the router checks both). The same
// domain call as Mailpit's DELETE /api/v1/messages without IDs; a Live server has no such button.
import { adminsOnly, confirmCard } from '../confirm-page.js';
import type { AppContext } from '../../../domain/app-context.js';
import { deleteAllOf, inboxCounts } from '../../../domain/mailpit/inbox.js';
import { ConsoleRefusal } from '../guard.js';
import { html } from '../html.js';
import { page } from '../layout.js';
import { redirectWith, type ConsoleRouter } from '../router.js';

const notSandbox = () => new ConsoleRefusal(400, "Only a Sandbox server's messages can be deleted here: a Live server's Activity is the record of what was sent.");

export function registerDeleteAll(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/activity/delete-all', async (c) => {
    adminsOnly(c.session);
    const inbox = await inboxCounts(ctx, c.server);
    if (!inbox) throw notSandbox();
    const base = `/console/s/${c.server.id}/activity`;
    const body = confirmCard(c.session, {
      say: html`<p>Delete all ${inbox.total.toLocaleString('en')} messages of the Sandbox server <strong>${c.server.name}</strong>?</p>
<p>Their events, opens and clicks go with them, for the console and for Mailpit's API alike. This cannot be undone.</p>`,
      action: `${base}/delete-all`,
      button: 'Delete all messages',
      cancel: base,
    });
    return page(c.frame('Delete all messages?', 'activity'), body);
  });

  r.action('/console/s/:sid/activity/delete-all', async (c) => {
    if (!(await inboxCounts(ctx, c.server))) throw notSandbox();
    const n = await deleteAllOf(ctx, c.server);
    return redirectWith(c.reply, `/console/s/${c.server.id}/activity`, { notice: `${n.toLocaleString('en')} message${n === 1 ? '' : 's'} deleted.` });
  });
}
