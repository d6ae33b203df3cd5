// Mailpit's per-message actions on the console's message page: newer/older within the list the message was
// opened from (the Activity's Mailpit search travels as ?q=), download as .eml, and for a Sandbox server's
// message (Mailpit's semantics: an inbox) mark read/unread, tag editing, delete with a confirmation page,
// and release through the operator's relay. The same domain calls as Mailpit's API, so the console and a
// test reading the API agree. Changes are POSTs with the CSRF token, admins only (router.ts).
import { adminsOnly, confirmCard } from '../confirm-page.js';
import type { AppContext } from '../../../domain/app-context.js';
import { emlOf } from '../../../domain/mailpit/eml.js';
import { inboxOf } from '../../../domain/mailpit/inbox.js';
import { consoleTerms, listScopeOf, neighbours } from '../../../domain/mailpit/inbox-list.js';
import { deleteMessages } from '../../../domain/mailpit/listing.js';
import { QueryError } from '../../../domain/mailpit/query.js';
import { readFlags, setRead } from '../../../domain/mailpit/read-state.js';
import { releaseMessage, ReleaseError } from '../../../domain/mailpit/release.js';
import { setTags, TagError, tagsOf } from '../../../domain/mailpit/tags.js';
import { ConsoleRefusal } from '../guard.js';
import { html, query, type Html } from '../html.js';
import { csrf, page } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';

const notSandbox = () => new ConsoleRefusal(400, "Only a Sandbox server's messages have an inbox's actions: a Live server's Activity is the record of what was sent.");

/** The ?q= a page carries along, so that newer/older and the way back stay in the same search. */
const carried = (c: PageCall) => (c.query.q ?? c.body.q ?? '').slice(0, 4000);

async function terms(c: PageCall) {
  try {
    return consoleTerms(c.server, carried(c));
  } catch (err) {
    if (err instanceof QueryError) return [];
    throw err;
  }
}

/** The bar above a message: navigation and download for every server, the inbox actions for a Sandbox one. */
export async function messageActions(ctx: AppContext, c: PageCall, id: string, tag: string): Promise<Html> {
  const q = carried(c);
  const sid = c.server.id;
  const base = `/console/s/${sid}/messages`;
  const near = await neighbours(ctx, c.server, id, await terms(c));
  const link = (to: string | null, label: string, rel: string) =>
    to ? html`<a href="${base}/${to}${query({ q })}" rel="${rel}" data-nav="${rel}">${label}</a>` : html`<span class="muted" aria-disabled="true">${label}</span>`;
  const nav = html`<nav class="toolbar message-nav" aria-label="Message navigation">
  <a href="/console/s/${sid}/activity${query({ q })}">Back to the list</a>${link(near.newer, '← Newer', 'prev')}${link(near.older, 'Older →', 'next')}
  <a href="${base}/${id}/download" download>Download .eml</a></nav>`;
  const inbox = inboxOf(c.server);
  if (!inbox || c.session.user.role !== 'admin') return nav;
  const state = (await readFlags(ctx, [id])).get(id);
  const tags = tagsOf(tag || null, state?.tags);
  const relay = ctx.config.releaseRelay;
  const keep = html`${csrf(c.session)}<input type="hidden" name="q" value="${q}">`;
  return html`${nav}
<div class="toolbar message-actions" role="group" aria-label="Message actions">
  <form method="post" action="${base}/${id}/unread" class="inline">${keep}<button type="submit">Mark unread</button></form>
  <a class="danger-link" href="${base}/${id}/delete${query({ q })}">Delete…</a>
</div>
<form method="post" action="${base}/${id}/tags" class="toolbar message-tags" aria-label="Edit tags">${keep}
  <label for="m-tags">Tags</label><input id="m-tags" name="tags" value="${tags.join(', ')}" placeholder="comma-separated" maxlength="2000">
  <button type="submit">Save tags</button></form>
${
  relay
    ? html`<form method="post" action="${base}/${id}/release" class="toolbar message-release" aria-label="Release this message">${keep}
  <label for="m-release">Release to</label><input id="m-release" name="to" type="text" inputmode="email" placeholder="you@example.com, qa@example.com" maxlength="4000" required>
  <button type="submit">Release</button>
  <span class="muted">through ${relay.host}:${relay.port}${relay.allowedRecipients.length ? html`; allowed: ${relay.allowedRecipients.join(', ')}` : ''}</span></form>`
    : html`<p class="muted">Release is off: set <code>MAILROOM_RELEASE_RELAY_HOST</code> to send a captured message on to a real inbox.</p>`
}`;
}

export function registerMessageActions(r: ConsoleRouter, ctx: AppContext): void {
  const base = (c: PageCall) => `/console/s/${c.server.id}/messages/${c.params.mid}`;
  const list = (c: PageCall) => `/console/s/${c.server.id}/activity${query({ q: carried(c) })}`;
  const mine = async (c: PageCall) => {
    const inbox = inboxOf(c.server);
    if (!inbox) throw notSandbox();
    const m = await ctx.db.selectFrom('messages').select('id').where('id', '=', c.params.mid!).where('server_id', '=', c.server.id).where('sandbox', '=', 1).executeTakeFirst();
    if (!m) throw new ConsoleRefusal(404, 'No such message on this server (it may have been deleted).');
    return inbox;
  };

  r.page('/console/s/:sid/messages/:mid/download', async (c) => {
    const eml = await emlOf(ctx, listScopeOf(c.server), c.params.mid!);
    if (!eml) throw new ConsoleRefusal(404, 'No such message on this server.');
    c.reply.type('message/rfc822').header('content-disposition', `attachment; filename="${c.params.mid!.replace(/[^0-9A-Za-z-]/g, '')}.eml"`).send(eml.raw);
  });

  // Marking unread goes back to the list: showing the message again would read it again.
  r.action('/console/s/:sid/messages/:mid/unread', async (c) => {
    await setRead(ctx, await mine(c), [c.params.mid!], false);
    return redirectWith(c.reply, list(c), { notice: 'Marked unread.' });
  });

  r.action('/console/s/:sid/messages/:mid/tags', async (c) => {
    const inbox = await mine(c);
    const tags = (c.body.tags ?? '').split(',').map((t) => t.trim()).filter(Boolean);
    try {
      await setTags(ctx, inbox, [c.params.mid!], tags);
    } catch (err) {
      if (err instanceof TagError) return redirectWith(c.reply, `${base(c)}${query({ q: carried(c) })}`, { error: err.message });
      throw err;
    }
    return redirectWith(c.reply, `${base(c)}${query({ q: carried(c) })}`, { notice: tags.length ? `Tags saved.` : 'Tags removed.' });
  });

  r.action('/console/s/:sid/messages/:mid/release', async (c) => {
    const inbox = await mine(c);
    const to = (c.body.to ?? '').split(',').map((t) => t.trim()).filter(Boolean);
    const back = `${base(c)}${query({ q: carried(c) })}`;
    try {
      await releaseMessage(ctx, inbox, c.params.mid!, to);
    } catch (err) {
      if (err instanceof ReleaseError) return redirectWith(c.reply, back, { error: err.message });
      throw err;
    }
    return redirectWith(c.reply, back, { notice: `Released to ${to.join(', ')}.` });
  });

  r.page('/console/s/:sid/messages/:mid/delete', async (c) => {
    adminsOnly(c.session);
    await mine(c);
    const m = await ctx.db.selectFrom('messages').select(['subject']).where('id', '=', c.params.mid!).executeTakeFirstOrThrow();
    const body = confirmCard(c.session, {
      say: html`<p>Delete the message <strong>${m.subject || '(no subject)'}</strong>?</p>
<p>Its events, opens and clicks go with it, for the console and for Mailpit's API alike. This cannot be undone.</p>`,
      action: `${base(c)}/delete`,
      button: 'Delete message',
      cancel: `${base(c)}${query({ q: carried(c) })}`,
      hidden: { q: carried(c) },
    });
    return page(c.frame('Delete this message?', 'activity'), body);
  });

  // As Mailpit, deleting moves on to the next (older) message of the list, or back to the list at its end.
  r.action('/console/s/:sid/messages/:mid/delete', async (c) => {
    const inbox = await mine(c);
    const next = (await neighbours(ctx, c.server, c.params.mid!, await terms(c))).older;
    await deleteMessages(ctx, inbox, [c.params.mid!]);
    const q = carried(c);
    return redirectWith(c.reply, next ? `/console/s/${c.server.id}/messages/${next}${query({ q })}` : list(c), { notice: 'Message deleted.' });
  });
}
