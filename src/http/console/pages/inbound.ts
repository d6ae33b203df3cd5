// Inbound: a server's inbound messages newest first, with the inbound API's filters (recipient, from, subject,
// MailboxHash, status, tag, dates), keyset pages (domain/inbound/feed.ts) and new arrivals fetched by the
// page's script (the same live mechanism as Activity). Every sender-controlled value is escaped by html``
// and isolated with <bdi>, and its bidirectional overrides are shown as marks (html.ts showControls), so a
// right-to-left override can neither disguise a name nor reorder the rest of the row.
import type { AppContext } from '../../../domain/app-context.js';
import { ApiError } from '../../../domain/errors.js';
import { inboundFeed, SCAN_WINDOW, type FeedCursor, type FeedItem, type FeedPage, type FeedRequest } from '../../../domain/inbound/feed.js';
import { INBOUND_STATUS } from '../../../domain/inbound/hook-queue.js';
import { getAccountServer } from '../../../domain/servers/account-servers.js';
import { html, query, showControls as v, type Html } from '../html.js';
import { page, when, ISO_DATE } from '../layout.js';
import type { ConsoleRouter } from '../router.js';
import { inboundTabs } from './inbound-settings.js';

const PAGE_SIZE = 50;
const FILTERS = ['recipient', 'fromemail', 'subject', 'mailboxhash', 'tag', 'status', 'fromdate', 'todate'] as const;

function parseCursor(text: string | undefined): FeedCursor | undefined {
  // An empty id: everything before that instant (where a bounded search stopped).
  const m = /^(\d{1,15})\.([0-9A-Za-z-]{0,64})$/.exec(text ?? '');
  return m ? { at: Number(m[1]), id: m[2]! } : undefined;
}

function request(q: Record<string, string>): Omit<FeedRequest, 'before' | 'after'> {
  const f: Omit<FeedRequest, 'before' | 'after'> = { limit: PAGE_SIZE };
  for (const k of FILTERS) if (q[k]) f[k] = q[k];
  return f;
}

export function inboundRows(serverId: number, items: FeedItem[]): Html {
  return html`${items.map(
    (m) => html`<tr data-cursor="${m.cursor}">
<td class="nowrap">${when(m.ReceivedAt)}</td><td>${m.FromName ? html`<bdi>${v(m.FromName)}</bdi> ` : ''}<span class="muted">&lt;<bdi>${v(m.From)}</bdi>&gt;</span></td><td><bdi>${v(m.OriginalRecipient)}</bdi></td>
<td><a href="/console/s/${serverId}/inbound/messages/${m.MessageID}"><bdi>${v(m.Subject) || '(no subject)'}</bdi></a></td>
<td class="nowrap"><span class="status status-${m.Status.toLowerCase()}"${m.BlockedReason ? html` title="${m.BlockedReason}"` : ''}>${m.Status}</span></td><td><bdi>${v(m.Tag)}</bdi></td><td><bdi>${v(m.MailboxHash)}</bdi></td></tr>`,
  )}`;
}

export function registerInbound(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/inbound', async (c) => {
    const q = c.query;
    const before = parseCursor(q.before);
    let found: FeedPage = { items: [] };
    let refused = '';
    try {
      found = await inboundFeed(ctx, c.server.id, { ...request(q), before });
    } catch (err) {
      // A filter the API refuses (a date it cannot read) is said beside the form, not as an error page.
      if (!(err instanceof ApiError)) throw err;
      refused = err.message;
    }
    const { items, searchedTo } = found;
    const filters = Object.fromEntries(FILTERS.map((k) => [k, q[k]]));
    const base = `/console/s/${c.server.id}/inbound`;
    const srv = await getAccountServer(ctx.db, c.session.user.accountId, c.server.id);
    const address = `${srv.inbound_hash}@${ctx.config.inboundDomain}`;
    const older = items.length === PAGE_SIZE ? `${base}${query({ ...filters, before: items[items.length - 1]!.cursor })}` : null;
    const live = before || refused ? '' : `${base}/live${query({ ...filters, after: items[0]?.cursor ?? '0.00000000-0000-0000-0000-000000000000' })}`;
    const text = (name: string, label: string, type = 'text') => html`<div class="field"><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" ${type === 'date' ? ISO_DATE : html`type="${type}"`} value="${q[name] ?? ''}"></div>`;
    const body = html`${inboundTabs(c.server.id, 'messages')}
<p>Inbound address: <code class="wrap" id="inbound-address">${address}</code> <button type="button" data-copy="#inbound-address" aria-label="Copy the inbound address">Copy</button></p>
${srv.inbound_hook_url ? '' : html`<p class="error" role="status" id="no-hook">Not posted: this server has no InboundHookUrl, so its inbound messages are kept here and for the API only. <a href="${base}/settings">Set the InboundHookUrl</a></p>`}
<form method="get" class="filters" aria-label="Filters">
  ${text('recipient', 'Recipient')}${text('fromemail', 'From')}${text('subject', 'Subject')}${text('mailboxhash', 'MailboxHash')}${text('tag', 'Tag')}
  <div class="field"><label for="f-status">Status</label><select id="f-status" name="status">${['', ...Object.values(INBOUND_STATUS)].map((s) => html`<option value="${s.toLowerCase()}"${(q.status ?? '').toLowerCase() === s.toLowerCase() ? html` selected` : ''}>${s || 'any'}</option>`)}</select></div>
  ${text('fromdate', 'From date', 'date')}${text('todate', 'To date', 'date')}
  <div class="field"><button type="submit">Filter</button> <a href="${base}">Clear</a></div>
</form>
${refused ? html`<p class="error" role="alert">${refused}</p>` : ''}
<p class="muted">Mail received for this server's inbound address, newest first.${live ? html` <span class="live" id="live-state" role="status">Live: new messages appear here.</span>` : ''}</p>
<table class="list inbound"><thead><tr><th scope="col">Received</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Status</th><th scope="col">Tag</th><th scope="col">MailboxHash</th></tr></thead>
<tbody id="inbound-rows"${live ? html` data-live="${live}"` : ''}>${inboundRows(c.server.id, items)}</tbody></table>
${items.length === 0 && !refused ? html`<p class="empty">No inbound messages match${searchedTo ? ' among these' : ''}.</p>` : ''}
${searchedTo ? html`<p class="muted" id="search-window">Searched ${SCAN_WINDOW.toLocaleString('en')} messages${before ? ' before that point' : ''}, back to ${when(searchedTo.at)}. <a href="${base}${query({ ...filters, before: `${searchedTo.at}.` })}" rel="next">Search older messages</a></p>` : ''}
<nav class="pager" aria-label="Pages">${before ? html`<a href="${base}${query(filters)}">Newest</a>` : ''}${older ? html`<a href="${older}" rel="next">Older messages</a>` : ''}</nav>`;
    return page(c.frame('Inbound', 'inbound'), body);
  });

  // Messages received after the newest one shown, as rows for the page to prepend.
  r.page('/console/s/:sid/inbound/live', async (c) => {
    const after = parseCursor(c.query.after);
    if (!after) return void c.reply.status(400).send({ error: 'after is required' });
    const { items } = await inboundFeed(ctx, c.server.id, { ...request(c.query), after });
    return void c.reply.send({ html: inboundRows(c.server.id, items).text, newest: items[0]?.cursor ?? c.query.after, count: items.length });
  });
}
