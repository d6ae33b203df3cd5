// Sender signatures and domains of the account: the overview with both lists and the forms that add one of
// each (the same calls as POST /senders and POST /domains; a refused value comes back beside its field).
// Each signature's page is sender-edit.ts, each domain's records and checks domain-page.ts. Everyone may
// look; only admins change (checked per action by the router, not only hidden here).
import type { AppContext } from '../../../domain/app-context.js';
import { createDomain } from '../../../domain/domains/domains.js';
import { createSignature, listSignatures } from '../../../domain/sender-signatures/signatures.js';
import { html } from '../html.js';
import { csrf, page } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { DOMAIN_FIELDS, domainForm, domainList, domainValues, type DomainValues } from './domain-list.js';
import { registerDomainPage } from './domain-page.js';
import { apiNamed, formError, type FormError } from '../form-errors.js';
import { registerSenderEdit } from './sender-edit.js';
import { SENDER_FIELDS, senderFields, senderValues, type SenderValues } from './sender-form.js';

interface Refused {
  domain?: { values: DomainValues; refusal: FormError };
  sender?: { values: SenderValues; refusal: FormError };
}

async function overview(ctx: AppContext, c: PageCall, refused: Refused = {}): Promise<string> {
  const accountId = c.session.user.accountId;
  const admin = c.session.user.role === 'admin';
  const [domains, { rows: sigs }] = await Promise.all([domainList(ctx, accountId), listSignatures(ctx, accountId, 500, 0)]);
  const body = html`<h2>Domains</h2>${domains}
${admin ? html`<details class="add"${refused.domain ? html` open` : ''}><summary>Add a domain</summary>${domainForm(c.session, refused.domain)}</details>` : ''}
<h2>Sender signatures</h2>
${sigs.length === 0 ? html`<p class="empty">No sender signatures.</p>` : html`<table class="list labelled" id="senders"><thead><tr><th scope="col">Address</th><th scope="col">Name</th><th scope="col">Confirmed</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${sigs.map(
  (s) => html`<tr><td><a href="/console/senders/${s.id}"><code class="wrap">${s.email}</code></a></td><td data-label="Name">${s.name}</td><td data-label="Confirmed">${s.confirmed ? html`<span class="ok">yes</span>` : html`<span class="warn">no</span>`}</td>
<td class="actions">${admin && !s.confirmed ? html`<form method="post" action="/console/senders/${s.id}/resend" class="inline">${csrf(c.session)}<button type="submit" aria-label="Resend confirmation to ${s.email}">Resend confirmation</button></form>` : ''}</td></tr>`,
)}</tbody></table>`}
${
  admin
    ? html`<details class="add"${refused.sender ? html` open` : ''}><summary>Add a sender signature</summary>
<form method="post" action="/console/senders" class="stack narrow" aria-label="Add a sender signature">${csrf(c.session)}
${senderFields({ prefix: 'ns', values: refused.sender?.values ?? {}, refusal: refused.sender?.refusal, withFrom: true })}
<p class="muted small">A confirmation email goes to the address; mail from it is accepted once its owner follows the link.</p>
<button type="submit">Add sender signature</button></form></details>`
    : ''
}`;
  return page(c.frame('Senders & domains', 'senders'), body);
}

export function registerSenders(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/senders', (c) => overview(ctx, c));

  r.action('/console/senders', async (c) => {
    const values = senderValues(c.body);
    try {
      const sig = await createSignature(ctx, c.session.user.accountId, values);
      return redirectWith(c.reply, `/console/senders/${sig.id}`, { notice: `Sender signature ${sig.email} added; a confirmation email is on its way to it.` });
    } catch (err) {
      const refusal = formError(err, apiNamed(SENDER_FIELDS, 'FromEmail'));
      void c.reply.status(422);
      return overview(ctx, c, { sender: { values, refusal } });
    }
  });

  r.action('/console/domains', async (c) => {
    const values = domainValues(c.body);
    try {
      const d = await createDomain(ctx, c.session.user.accountId, values);
      return redirectWith(c.reply, `/console/domains/${d.id}`, { notice: `Domain ${d.name} added: publish its DNS records below, then verify each.` });
    } catch (err) {
      const refusal = formError(err, apiNamed(DOMAIN_FIELDS, 'Name'));
      void c.reply.status(422);
      return overview(ctx, c, { domain: { values, refusal } });
    }
  });

  registerSenderEdit(r, ctx);
  registerDomainPage(r, ctx);
}
