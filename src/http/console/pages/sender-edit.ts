// One sender signature: its state, the edit form (the same call as PUT /senders/{id}, a refused value shown
// beside its field), resending the confirmation (POST /senders/{id}/resend), and deletion behind a
// confirmation page (DELETE /senders/{id}).
import { adminsOnly, confirmCard } from '../confirm-page.js';
import type { AppContext } from '../../../domain/app-context.js';
import { deleteSignature, getSignature, resendConfirmation, updateSignature } from '../../../domain/sender-signatures/signatures.js';
import { signatureDetail } from '../../../domain/sender-signatures/view.js';
import { html } from '../html.js';
import { csrf, page, when } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { verifiedBadge } from './domain-records.js';
import { apiNamed, formError, type FormError } from '../form-errors.js';
import { rowIdOf } from './row-id.js';
import { SENDER_FIELDS, senderFields, senderValues, type SenderValues } from './sender-form.js';

async function senderPage(ctx: AppContext, c: PageCall, form?: { values: SenderValues; refusal: FormError }): Promise<string> {
  const sig = await getSignature(ctx, c.session.user.accountId, rowIdOf(c.params.id));
  const d = await signatureDetail(ctx, sig);
  const admin = c.session.user.role === 'admin';
  const base = `/console/senders/${sig.id}`;
  const domainId = sig.domain_id;
  const stored: Partial<SenderValues> = { Name: sig.name, ReplyToEmail: sig.reply_to, ReturnPathDomain: sig.return_path_domain, ConfirmationPersonalNote: sig.confirmation_personal_note };
  const body = html`<p><a href="/console/senders">Senders &amp; domains</a> · domain <a href="/console/domains/${domainId}">${String(d.Domain)}</a></p>
<dl class="summary"><dt>Address</dt><dd><code class="wrap">${sig.email}</code></dd>
<dt>Name</dt><dd>${sig.name}</dd>
<dt>Confirmed</dt><dd>${sig.confirmed ? html`<span class="ok">yes</span>${sig.confirmed_at ? html` · ${when(sig.confirmed_at)}` : ''}` : html`<span class="warn">no</span>: mail from it is refused until the owner follows the link in the confirmation email, or the domain's DKIM is verified${sig.confirmation_sent_at ? html` (sent ${when(sig.confirmation_sent_at)})` : ''}.`}</dd>
<dt>Reply-To</dt><dd>${sig.reply_to || html`<span class="muted">none</span>`}</dd>
<dt>DKIM (domain)</dt><dd>${verifiedBadge(d.DKIMVerified === true)}</dd>
<dt>Return-Path</dt><dd>${d.ReturnPathDomain ? html`<code class="wrap">${String(d.ReturnPathDomain)}</code> CNAME <code class="wrap">${String(d.ReturnPathDomainCNAMEValue)}</code> ${verifiedBadge(d.ReturnPathDomainVerified === true)}${sig.return_path_domain ? '' : " (the domain's)"}` : html`<span class="muted">none</span>`}</dd></dl>
${
  admin
    ? html`${sig.confirmed ? '' : html`<p><form method="post" action="${base}/resend" class="inline">${csrf(c.session)}<button type="submit">Resend confirmation</button></form></p>`}
<h2>Edit</h2>
<form method="post" action="${base}/save" class="stack narrow" aria-label="Edit ${sig.email}">${csrf(c.session)}
${senderFields({ prefix: 'edit', values: form?.values ?? stored, refusal: form?.refusal, withFrom: false })}
<button type="submit">Save</button></form>
<h2>Delete</h2><p><a href="${base}/delete" class="danger-link">Delete this sender signature…</a></p>`
    : ''
}`;
  return page(c.frame(`Sender ${sig.email}`, 'senders'), body);
}

export function registerSenderEdit(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/senders/:id', (c) => senderPage(ctx, c));

  r.action('/console/senders/:id/save', async (c) => {
    const values = senderValues(c.body);
    const { FromEmail: _from, ...edit } = values;
    try {
      const sig = await updateSignature(ctx, c.session.user.accountId, rowIdOf(c.params.id), edit);
      return redirectWith(c.reply, `/console/senders/${sig.id}`, { notice: `Sender signature ${sig.email} saved.` });
    } catch (err) {
      const refusal = formError(err, apiNamed(SENDER_FIELDS, 'Name'));
      void c.reply.status(422);
      return senderPage(ctx, c, { values, refusal });
    }
  });

  r.action('/console/senders/:id/resend', async (c) => {
    const s = await resendConfirmation(ctx, c.session.user.accountId, rowIdOf(c.params.id));
    return redirectWith(c.reply, `/console/senders/${s.id}`, { notice: `Confirmation sent again to ${s.email}.` });
  });

  r.page('/console/senders/:id/delete', async (c) => {
    adminsOnly(c.session);
    const sig = await getSignature(ctx, c.session.user.accountId, rowIdOf(c.params.id));
    const base = `/console/senders/${sig.id}`;
    const body = confirmCard(c.session, {
      say: html`<p>Delete the sender signature <code class="wrap">${sig.email}</code>?</p>
<p>Mail from this address is refused once it is gone (unless its domain's DKIM is verified). The domain and its DNS records stay. This cannot be undone.</p>`,
      action: `${base}/delete`,
      button: 'Delete this sender signature',
      cancel: base,
    });
    return page(c.frame('Delete sender signature?', 'senders'), body);
  });

  r.action('/console/senders/:id/delete', async (c) => {
    const email = await deleteSignature(ctx, c.session.user.accountId, rowIdOf(c.params.id));
    return redirectWith(c.reply, '/console/senders', { notice: `Sender signature ${email} deleted.` });
  });
}
