// "Send a test" from the template editor: the saved template rendered with the editor's test model and sent
// to an address the admin types, through the very call behind POST /email/withTemplate
// (domain/accepting/send-with-template.ts): the same rendering, layout, checks (confirmed sender,
// suppressions) and delivery as an application's send. Admins only, checked by the router.
import type { AppContext } from '../../../domain/app-context.js';
import { sendWithTemplates } from '../../../domain/accepting/send-with-template.js';
import { ApiError, ServiceBusy } from '../../../domain/errors.js';
import { listSignatures } from '../../../domain/sender-signatures/signatures.js';
import type { TemplateRow } from '../../../domain/templates/store.js';
import { html, type Html } from '../html.js';
import type { PageCall } from '../router.js';

/** The fieldset inside the editor's form: its button posts the whole form (so the current test model) here. */
export async function sendTestFields(ctx: AppContext, c: PageCall, base: string, values: Record<string, string>): Promise<Html> {
  const { rows } = await listSignatures(ctx, c.session.user.accountId, 100, 0);
  const confirmed = rows.filter((s) => s.confirmed).map((s) => s.email);
  const from = values.test_from ?? confirmed[0] ?? '';
  return html`<fieldset class="send-test"><legend>Send a test</legend>
<p class="muted small">Sends the <em>saved</em> template, rendered with the test model above, as an application would (POST /email/withTemplate).</p>
<label for="t-test-from">From (a confirmed sender)</label><input id="t-test-from" name="test_from" type="email" list="t-senders" value="${from}" autocomplete="off">
<datalist id="t-senders">${confirmed.map((e) => html`<option value="${e}"></option>`)}</datalist>
<label for="t-test-to">To</label><input id="t-test-to" name="test_to" type="email" value="${values.test_to ?? c.session.user.email}" autocomplete="email">
<div class="buttons"><button type="submit" formaction="${base}/send-test" id="send-test-button">Send test</button></div></fieldset>`;
}

/** Sends it; the outcome is a notice or an error for the editor to show (its unsaved edits kept). */
export async function sendTest(ctx: AppContext, c: PageCall, t: TemplateRow, model: unknown): Promise<{ notice?: string; error?: string }> {
  const to = (c.body.test_to ?? '').trim();
  const from = (c.body.test_from ?? '').trim();
  if (!to) return { error: 'Type the address the test goes to.' };
  if (!from) return { error: 'Type the From address (a confirmed sender signature or an address of a verified domain).' };
  const message = { TemplateId: t.id, TemplateModel: model ?? {}, From: from, To: to, Tag: 'console-test' };
  // A busy service (the CSS inlining threads or the sending queue) refuses the whole call: shown, not a 500.
  const outcomes = await sendWithTemplates(ctx, { accountId: c.session.user.accountId, serverId: c.server.id, testMode: false }, [message], null).catch((err: unknown) => {
    if (err instanceof ServiceBusy) return err;
    throw err;
  });
  if (outcomes instanceof ApiError) return { error: `The test was not sent: ${outcomes.message}` };
  const [o] = outcomes;
  const r = o!.result;
  if (r.ErrorCode !== 0 || !('MessageID' in r)) return { error: `The test was not sent: ${r.Message}` };
  return { notice: `Test sent to ${to} (message ${r.MessageID}); it shows in Activity with the tag console-test.` };
}
