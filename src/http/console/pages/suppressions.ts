// Suppressions of one stream: search, add, remove, through the same domain calls as the API (spam complaints
// cannot be lifted: the domain answers Failed and the page says so).
import type { AppContext } from '../../../domain/app-context.js';
import { getStream } from '../../../domain/streams/find-stream.js';
import { listStreams } from '../../../domain/streams/list-streams.js';
import { suppressAddresses, unsuppressAddresses } from '../../../domain/suppressions/change.js';
import { dumpSuppressions } from '../../../domain/suppressions/dump.js';
import { MAX_SUPPRESSIONS_PER_CALL } from '../../../domain/suppressions/reasons.js';
import { html } from '../html.js';
import { csrf, page, when } from '../layout.js';
import { redirectWith, type ConsoleRouter } from '../router.js';

const SHOWN = 500;

export function registerSuppressions(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/suppressions', async (c) => {
    const streams = (await listStreams(ctx.db, c.server.id, {})).filter((s) => s.type !== 'Inbound');
    const stream = await getStream(ctx.db, c.server.id, c.query.stream || 'outbound');
    const all = await dumpSuppressions(ctx.db, c.server.id, stream.id, { emailAddress: c.query.email || undefined, suppressionReason: c.query.reason || undefined });
    const list = all.slice(0, SHOWN);
    const admin = c.session.user.role === 'admin';
    const base = `/console/s/${c.server.id}/suppressions`;
    const body = html`
<form method="get" class="filters" aria-label="Search">
  <div class="field"><label for="s-stream">Stream</label><select id="s-stream" name="stream">${streams.map((s) => html`<option value="${s.id}"${s.id === stream.id ? html` selected` : ''}>${s.name}</option>`)}</select></div>
  <div class="field"><label for="s-email">Address</label><input id="s-email" name="email" value="${c.query.email ?? ''}"></div>
  <div class="field"><label for="s-reason">Reason</label><select id="s-reason" name="reason">${['', 'ManualSuppression', 'HardBounce', 'SpamComplaint'].map((v) => html`<option value="${v}"${c.query.reason === v ? html` selected` : ''}>${v || 'any'}</option>`)}</select></div>
  <div class="field"><button type="submit">Search</button></div>
</form>
${admin ? html`<form method="post" action="${base}/add" class="filters" aria-label="Add suppressions">${csrf(c.session)}<input type="hidden" name="stream" value="${stream.id}">
  <div class="field grow"><label for="s-add">Suppress addresses (comma or line separated, up to ${MAX_SUPPRESSIONS_PER_CALL})</label><input id="s-add" name="addresses" required></div>
  <div class="field"><button type="submit">Suppress</button></div></form>` : ''}
<p class="muted">${all.length} suppressed in ${stream.name}${all.length > SHOWN ? `; the newest ${SHOWN} shown, narrow the search` : ''}.</p>
<table class="list"><thead><tr><th scope="col">Address</th><th scope="col">Reason</th><th scope="col">Origin</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${list.map(
  (s) => html`<tr><td>${s.EmailAddress}</td><td>${s.SuppressionReason}</td><td>${s.Origin}</td><td class="nowrap">${when(s.CreatedAt)}</td><td class="actions">${
    s.SuppressionReason === 'SpamComplaint'
      ? html`<span class="muted">spam complaints cannot be lifted</span>`
      : admin
        ? html`<form method="post" action="${base}/remove" class="inline">${csrf(c.session)}<input type="hidden" name="stream" value="${stream.id}"><input type="hidden" name="addresses" value="${s.EmailAddress}"><button type="submit" aria-label="Remove ${s.EmailAddress}">Remove</button></form>`
        : ''
  }</td></tr>`,
)}</tbody></table>
${list.length === 0 ? html`<p class="empty">No suppressions.</p>` : ''}`;
    return page(c.frame('Suppressions', 'suppressions'), body);
  });

  for (const [path, change, verb] of [
    ['add', suppressAddresses, 'suppressed'],
    ['remove', unsuppressAddresses, 'removed'],
  ] as const) {
    r.action(`/console/s/:sid/suppressions/${path}`, async (c) => {
      const stream = await getStream(ctx.db, c.server.id, c.body.stream || 'outbound');
      const addresses = (c.body.addresses ?? '').split(/[\s,;]+/).filter(Boolean).slice(0, MAX_SUPPRESSIONS_PER_CALL);
      const results = await change(ctx, c.server.id, stream.id, addresses.map((EmailAddress) => ({ EmailAddress })));
      const ok = results.filter((x) => x.Status !== 'Failed').map((x) => x.EmailAddress);
      const failed = results.filter((x) => x.Status === 'Failed').map((x) => `${x.EmailAddress}: ${x.Message}`);
      const back = `/console/s/${c.server.id}/suppressions?stream=${encodeURIComponent(stream.id)}`;
      return redirectWith(c.reply, back, { notice: ok.length ? `${ok.join(', ')} ${verb}.` : undefined, error: failed.length ? failed.join('; ') : undefined });
    });
  }
}
