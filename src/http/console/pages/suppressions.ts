// Suppressions of one stream: filter by stream, reason and address, add (per stream), remove, export as CSV
// (suppression-export.ts), through the same domain calls as the API. A refused address is said beside the
// field with the API's message (spam complaints cannot be lifted: the domain answers Failed and the page
// says so).
import type { AppContext } from '../../../domain/app-context.js';
import { ApiError } from '../../../domain/errors.js';
import { getStream } from '../../../domain/streams/find-stream.js';
import { listStreams } from '../../../domain/streams/list-streams.js';
import { suppressAddresses, unsuppressAddresses } from '../../../domain/suppressions/change.js';
import { dumpSuppressions, type SuppressionRecord } from '../../../domain/suppressions/dump.js';
import { countSuppressions, exportSuppressions } from '../../../domain/suppressions/export-pages.js';
import { MAX_SUPPRESSIONS_PER_CALL, SUPPRESSION_REASONS } from '../../../domain/suppressions/reasons.js';
import { html, query } from '../html.js';
import { csrf, page, when } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { besideField, invalidAttrs, type FormError } from '../form-errors.js';
import { registerSuppressionExport } from './suppression-export.js';

const SHOWN = 500;

/** The addresses of the form's field: comma, semicolon or line separated. */
const addressesOf = (text: string | undefined) => (text ?? '').split(/[\s,;]+/).filter(Boolean);

async function suppressionsPage(ctx: AppContext, c: PageCall, st: { stream?: string; addresses?: string; error?: FormError } = {}): Promise<string> {
  const streams = (await listStreams(ctx.db, c.server.id, {})).filter((s) => s.type !== 'Inbound');
  const stream = await getStream(ctx.db, c.server.id, st.stream || c.query.stream || 'outbound');
  // A refused search (a Reason the API does not know) is said beside the Reason filter; a refused add, by its field.
  let error: FormError | undefined = st.error;
  let list: SuppressionRecord[] = [];
  let total = 0;
  try {
    if (c.query.email) {
      list = await dumpSuppressions(ctx.db, c.server.id, stream.id, { emailAddress: c.query.email, suppressionReason: c.query.reason || undefined });
      total = list.length;
    } else {
      total = await countSuppressions(ctx.db, c.server.id, stream.id, c.query.reason || undefined);
      const first = await exportSuppressions(ctx.db, c.server.id, stream.id, c.query.reason || undefined).next();
      list = first.done ? [] : first.value.slice(0, SHOWN);
    }
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    error = { field: 'reason', message: err.message };
  }
  const admin = c.session.user.role === 'admin';
  const base = `/console/s/${c.server.id}/suppressions`;
  const body = html`
<form method="get" class="filters" aria-label="Search">
  <div class="field"><label for="s-stream">Stream</label><select id="s-stream" name="stream">${streams.map((s) => html`<option value="${s.id}"${s.id === stream.id ? html` selected` : ''}>${s.name}</option>`)}</select></div>
  <div class="field"><label for="s-email">Address</label><input id="s-email" name="email" value="${c.query.email ?? ''}"></div>
  <div class="field"><label for="s-reason">Reason</label><select id="s-reason" name="reason"${invalidAttrs(error, 'reason')}>${['', ...SUPPRESSION_REASONS].map((v) => html`<option value="${v}"${c.query.reason === v ? html` selected` : ''}>${v || 'any'}</option>`)}</select>${besideField(error, 'reason')}</div>
  <div class="field"><button type="submit">Search</button></div>
  <div class="field"><a href="${base}/export.csv${query({ stream: stream.id, reason: c.query.reason })}" download>Export CSV</a></div>
</form>
${admin ? html`<form method="post" action="${base}/add" class="filters" aria-label="Add suppressions">${csrf(c.session)}
  <div class="field"><label for="s-add-stream">To stream</label><select id="s-add-stream" name="stream">${streams.map((s) => html`<option value="${s.id}"${s.id === stream.id ? html` selected` : ''}>${s.name}</option>`)}</select></div>
  <div class="field grow"><label for="s-add">Suppress addresses (comma or line separated, up to ${MAX_SUPPRESSIONS_PER_CALL})</label><input id="s-add" name="addresses" required value="${st.addresses ?? ''}"${invalidAttrs(error, 'addresses')}>${besideField(error, 'addresses')}</div>
  <div class="field"><button type="submit">Suppress</button></div></form>` : ''}
<p class="muted">${total} suppressed in ${stream.name}${total > list.length ? `; the newest ${list.length} shown: narrow the search, or export the CSV for all` : ''}.</p>
<table class="list labelled"><thead><tr><th scope="col">Address</th><th scope="col">Reason</th><th scope="col">Origin</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${list.map(
  (s) => html`<tr><td class="wrap">${s.EmailAddress}</td><td data-label="Reason">${s.SuppressionReason}</td><td data-label="Origin">${s.Origin}</td><td class="nowrap">${when(s.CreatedAt)}</td><td class="actions">${
    s.SuppressionReason === 'SpamComplaint'
      ? html`<span class="muted">spam complaints cannot be lifted</span>`
      : admin
        ? html`<form method="post" action="${base}/remove" class="inline">${csrf(c.session)}<input type="hidden" name="stream" value="${stream.id}"><input type="hidden" name="addresses" value="${s.EmailAddress}"><button type="submit" aria-label="Remove ${s.EmailAddress}">Remove</button></form>`
        : ''
  }</td></tr>`,
)}</tbody></table>
${list.length === 0 ? html`<p class="empty">No suppressions.</p>` : ''}`;
  return page(c.frame('Suppressions', 'suppressions'), body);
}

export function registerSuppressions(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/suppressions', (c) => suppressionsPage(ctx, c));
  registerSuppressionExport(r, ctx);

  // Adding: the addresses refused (with the API's per-address Message) stay in the field, the message beside it.
  r.action('/console/s/:sid/suppressions/add', async (c) => {
    const stream = await getStream(ctx.db, c.server.id, c.body.stream || 'outbound');
    const addresses = addressesOf(c.body.addresses);
    const refuse = (message: string, kept = c.body.addresses) => {
      c.reply.status(422);
      return suppressionsPage(ctx, c, { stream: stream.id, addresses: kept, error: { field: 'addresses', message } });
    };
    if (addresses.length === 0) return refuse('Give at least one email address.');
    if (addresses.length > MAX_SUPPRESSIONS_PER_CALL) return refuse(`At most ${MAX_SUPPRESSIONS_PER_CALL} addresses per request; ${addresses.length} were given.`);
    const results = await suppressAddresses(ctx, c.server.id, stream.id, addresses.map((EmailAddress) => ({ EmailAddress })));
    const ok = results.filter((x) => x.Status !== 'Failed').map((x) => x.EmailAddress);
    const failed = results.filter((x) => x.Status === 'Failed');
    if (failed.length > 0) {
      const said = failed.map((x) => `${x.EmailAddress}: ${x.Message}`).join('; ');
      return refuse(ok.length ? `${ok.join(', ')} suppressed. Not suppressed: ${said}` : said, failed.map((x) => x.EmailAddress).join(', '));
    }
    return redirectWith(c.reply, `/console/s/${c.server.id}/suppressions${query({ stream: stream.id })}`, { notice: `${ok.join(', ')} suppressed in ${stream.name}.` });
  });

  r.action('/console/s/:sid/suppressions/remove', async (c) => {
    const stream = await getStream(ctx.db, c.server.id, c.body.stream || 'outbound');
    const addresses = addressesOf(c.body.addresses).slice(0, MAX_SUPPRESSIONS_PER_CALL);
    const results = await unsuppressAddresses(ctx, c.server.id, stream.id, addresses.map((EmailAddress) => ({ EmailAddress })));
    const ok = results.filter((x) => x.Status !== 'Failed').map((x) => x.EmailAddress);
    const failed = results.filter((x) => x.Status === 'Failed').map((x) => `${x.EmailAddress}: ${x.Message}`);
    const back = `/console/s/${c.server.id}/suppressions${query({ stream: stream.id })}`;
    return redirectWith(c.reply, back, { notice: ok.length ? `${ok.join(', ')} removed.` : undefined, error: failed.length ? failed.join('; ') : undefined });
  });
}
