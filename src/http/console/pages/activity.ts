// Activity: a server's outbound messages newest first, with the search API's filters, keyset paging (a page
// costs the same at the millionth message as at the first) and new arrivals fetched by the page's script.
// A Sandbox server also has a search box in Mailpit's syntax (domain/mailpit/query.ts), and any server an
// "All streams" list; both are read by domain/mailpit/inbox-list.ts, the other filters do not apply there.
import type { AppContext } from '../../../domain/app-context.js';
import { searchMessages, type Cursor, type MessageSearch } from '../../../domain/messages/search.js';
import { listStreams } from '../../../domain/streams/list-streams.js';
import { html, query, type Html } from '../html.js';
import { besideField, invalidAttrs, type FormError } from '../form-errors.js';
import { page, when, ISO_DATE } from '../layout.js';
import type { ConsoleRouter } from '../router.js';
import { inboxCounts, unreadAmong } from '../../../domain/mailpit/inbox.js';
import { registerDeleteAll } from './inbox-delete.js';
import { requestSignal } from '../../request-signal.js';
import { outcomesOf, type Outcome } from '../../../domain/messages/outcome.js';
import { outcomeBadge } from '../outcome-badge.js';
import { consoleTerms, inboxPage } from '../../../domain/mailpit/inbox-list.js';
import { QueryError, type Term } from '../../../domain/mailpit/query.js';

const PAGE_SIZE = 50;
/** The search API's status filter, in the outcome's words: "sent" is every message that left the queue. */
const STATUS_FILTERS = [
  ['', 'any'],
  ['queued', 'queued'],
  ['sent', 'left the queue (delivered or bounced)'],
  ['bounced', 'bounced'],
] as const;
const FILTERS = ['q', 'recipient', 'fromemail', 'tag', 'status', 'stream', 'subject', 'fromdate', 'todate', 'metakey', 'metavalue'] as const;

export function parseCursor(text: string | undefined): Cursor | undefined {
  // Message ids are UUIDs (lowercase); anything id-like is accepted, since it is only compared, never trusted.
  const m = /^(\d{1,15})\.([0-9A-Za-z-]{1,64})$/.exec(text ?? '');
  return m ? { at: Number(m[1]), id: m[2]! } : undefined;
}

type Item = Awaited<ReturnType<typeof searchMessages>>['Messages'][number];
const cursorOf = (m: Item): string => `${Date.parse(m.ReceivedAt ?? '')}.${m.MessageID}`;

function search(q: Record<string, string>): MessageSearch {
  const metadata = q.metakey && q.metavalue !== undefined ? { [q.metakey]: q.metavalue } : undefined;
  return {
    count: PAGE_SIZE,
    offset: 0,
    withTotal: false,
    recipient: q.recipient || undefined,
    fromemail: q.fromemail || undefined,
    tag: q.tag || undefined,
    status: q.status || undefined,
    subject: q.subject || undefined,
    messagestream: q.stream || undefined,
    fromdate: q.fromdate || undefined,
    todate: q.todate || undefined,
    metadata,
  };
}

/** The outcome of each listed message, from one query for the page (domain/messages/outcome.ts). */
export function pageOutcomes(ctx: AppContext, serverId: number, items: Item[]): Promise<Map<string, Outcome>> {
  return outcomesOf(
    ctx,
    serverId,
    items.map((m) => ({ id: m.MessageID, status: m.Status, sandbox: m.Sandboxed, recipients: m.Recipients.length })),
  );
}

/**
 * `unread`: the unread ones of a Sandbox server's messages (Mailpit's inbox), shown bold with a marker.
 * `outcomes`: what became of each (Delivered, Bounced...), shown instead of the API's Status.
 */
export function rows(serverId: number, items: Item[], unread: Set<string> = new Set(), outcomes: Map<string, Outcome> = new Map(), search = ''): Html {
  return html`${items.map(
    (m) => html`<tr data-cursor="${cursorOf(m)}"${unread.has(m.MessageID) ? html` class="unread"` : ''}>
<td class="nowrap">${unread.has(m.MessageID) ? html`<span class="unread-dot" title="Unread"><span class="sr-only">Unread </span></span>` : ''}${when(m.ReceivedAt)}</td><td>${m.From}</td><td>${m.Recipients.join(', ')}</td>
<td><a href="/console/s/${serverId}/messages/${m.MessageID}${query({ q: search })}">${m.Subject || '(no subject)'}</a></td>
<td class="nowrap">${outcomes.has(m.MessageID) ? outcomeBadge(outcomes.get(m.MessageID)!) : html`<span class="status status-${m.Status.toLowerCase()}">${m.Status}</span>`}</td><td>${m.Tag}</td></tr>`,
  )}`;
}

/** A Sandbox server's inbox line: its unread count, and for admins, emptying it (a confirmation page first). */
function inboxBar(serverId: number, inbox: { total: number; unread: number }, admin: boolean): Html {
  return html`<p class="inbox-bar" id="inbox-state"><strong id="inbox-unread">${inbox.unread.toLocaleString('en')}</strong> unread of <span id="inbox-total">${inbox.total.toLocaleString('en')}</span> (opening a message marks it read; tests read the same inbox through <a href="https://mailpit.axllent.org/docs/api-v1/">Mailpit's API</a> at <code>/mailpit</code>).${
    admin && inbox.total > 0 ? html` <a class="danger-link" href="/console/s/${serverId}/activity/delete-all">Delete all messages</a>` : ''
  }</p>`;
}

export function registerActivity(r: ConsoleRouter, ctx: AppContext): void {
  registerDeleteAll(r, ctx);
  r.page('/console/s/:sid/activity', async (c) => {
    const q = c.query;
    const before = parseCursor(q.before);
    const sandbox = c.server.delivery_type === 'Sandbox';
    const mq = sandbox ? (q.q ?? '').trim().slice(0, 4000) : '';
    const allStreams = q.stream === 'all';
    let terms: Term[] = [];
    let queryError: FormError | null = null;
    try {
      terms = consoleTerms(c.server, mq);
    } catch (err) {
      if (!(err instanceof QueryError)) throw err;
      queryError = { field: 'q', message: err.message };
    }
    const signal = requestSignal(c.reply);
    const mailpitList = mq !== '' || allStreams;
    const [items, streams] = await Promise.all([
      queryError ? [] : mailpitList ? inboxPage(ctx, c.server, terms, before, PAGE_SIZE, signal) : searchMessages(ctx, c.server.id, { ...search(q), before, signal }).then((f) => f.Messages),
      listStreams(ctx.db, c.server.id, { includeArchived: true }),
    ]);
    const [unread, inbox, outcomes] = await Promise.all([unreadAmong(ctx, c.server, items.map((m) => m.MessageID)), inboxCounts(ctx, c.server), pageOutcomes(ctx, c.server.id, items)]);
    const filters = Object.fromEntries(FILTERS.map((k) => [k, q[k]]));
    const older = items.length === PAGE_SIZE ? `/console/s/${c.server.id}/activity${query({ ...filters, before: cursorOf(items[items.length - 1]!) })}` : null;
    // Live updates only on the first page (a later page is a look into the past).
    const live = before || mailpitList ? '' : `/console/s/${c.server.id}/activity/live${query({ ...filters, after: items[0] ? cursorOf(items[0]) : '0.00000000-0000-0000-0000-000000000000' })}`;
    const text = (name: string, label: string, type = 'text') => html`<div class="field"><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" ${type === 'date' ? ISO_DATE : html`type="${type}"`} value="${q[name] ?? ''}"></div>`;
    const searchBox = sandbox
      ? html`<form method="get" class="filters mailpit-search" role="search" aria-label="Search in Mailpit's syntax">
  <div class="field grow"><label for="f-q">Search (Mailpit's syntax)</label><input id="f-q" type="search" name="q" value="${mq}" maxlength="4000" placeholder="to:jane@example.com is:unread tag:welcome -subject:test"${invalidAttrs(queryError, 'q', 'f-q')}>
  ${besideField(queryError, 'q', 'f-q')}</div>
  ${allStreams ? html`<input type="hidden" name="stream" value="all">` : ''}
  <div class="field"><button type="submit">Search</button></div>
  <details class="syntax"><summary>Syntax</summary><p class="muted"><code>to:</code> <code>from:</code> <code>cc:</code> <code>subject:</code> <code>tag:</code> <code>message-id:</code>, <code>is:read</code> <code>is:unread</code> <code>is:tagged</code>, <code>has:attachment</code>, <code>after:2026-01-31</code> <code>before:</code>, free words and <code>"quoted phrases"</code>; <code>-</code> or <code>!</code> before a term negates it. Searches every stream of the server.</p></details>
</form>`
      : '';
    const body = html`${searchBox}
<form method="get" class="filters" aria-label="Filters">
  ${text('recipient', 'Recipient')}${text('fromemail', 'From')}${text('subject', 'Subject')}${text('tag', 'Tag')}
  <div class="field"><label for="f-status">Status</label><select id="f-status" name="status">${STATUS_FILTERS.map(([s, label]) => html`<option value="${s}"${q.status === s ? html` selected` : ''}>${label}</option>`)}</select></div>
  <div class="field"><label for="f-stream">Stream</label><select id="f-stream" name="stream"><option value="all"${allStreams ? html` selected` : ''}>All streams</option>${streams
    .filter((s) => s.type !== 'Inbound')
    .map((s) => html`<option value="${s.id}"${(q.stream || 'outbound') === s.id ? html` selected` : ''}>${s.name}</option>`)}</select></div>
  ${text('fromdate', 'From date', 'date')}${text('todate', 'To date', 'date')}${text('metakey', 'Metadata key')}${text('metavalue', 'Metadata value')}
  <div class="field"><button type="submit">Filter</button> <a href="/console/s/${c.server.id}/activity">Clear</a></div>
</form>
${mailpitList ? html`<p class="muted" id="list-mode">${mq ? html`Messages of every stream matching <code>${mq}</code>` : 'Messages of every stream'}, newest first; the filters apply to one stream's list, not here. <a href="/console/s/${c.server.id}/activity">Back to the outbound stream</a></p>` : ''}
<p class="muted">Newest first${c.server.delivery_type === 'Sandbox' ? html`; this is a <strong>sandbox</strong> server: its messages are kept here and never leave mailroom` : ''}.${live ? html` <span class="live" id="live-state" role="status">Live: new messages appear here.</span>` : ''}</p>
${inbox ? inboxBar(c.server.id, inbox, c.session.user.role === 'admin') : ''}
<table class="list"><thead><tr><th scope="col">Received</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Status</th><th scope="col">Tag</th></tr></thead>
<tbody id="activity-rows"${live ? html` data-live="${live}"` : ''}>${rows(c.server.id, items, unread, outcomes, mq)}</tbody></table>
${items.length === 0 ? html`<p class="empty">No messages match.</p>` : ''}
<nav class="pager" aria-label="Pages">${before ? html`<a href="/console/s/${c.server.id}/activity${query(filters)}">Newest</a>` : ''}${older ? html`<a href="${older}" rel="next">Older messages</a>` : ''}</nav>`;
    return page(c.frame('Activity', 'activity'), body);
  });

  // New messages since the newest one shown, as rows for the page to prepend (rendered here, escaped the same way).
  r.page('/console/s/:sid/activity/live', async (c) => {
    const after = parseCursor(c.query.after);
    if (!after) return void c.reply.status(400).send({ error: 'after is required' });
    const found = await searchMessages(ctx, c.server.id, { ...search(c.query), after, signal: requestSignal(c.reply) });
    const items = found.Messages;
    const [unread, inbox, outcomes] = await Promise.all([unreadAmong(ctx, c.server, items.map((m) => m.MessageID)), items.length ? inboxCounts(ctx, c.server) : null, pageOutcomes(ctx, c.server.id, items)]);
    return void c.reply.send({ inbox, html: rows(c.server.id, items, unread, outcomes).text, newest: items[0] ? cursorOf(items[0]) : c.query.after, count: items.length });
  });
}
