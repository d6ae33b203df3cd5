// Inbound rules: the addresses and domains whose mail is kept as Blocked instead of being posted to the
// application; list, add and remove through the domain functions of /triggers/inboundrules (admins only
// change them).
import type { AppContext } from '../../../domain/app-context.js';
import { ApiError, ErrorCode } from '../../../domain/errors.js';
import { createRule, deleteRule, listRules } from '../../../domain/inbound/rules.js';
import { html, query } from '../html.js';
import { csrf, page } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { besideField, byPrefix, formError, invalidAttrs, type FormError } from '../form-errors.js';
import { inboundTabs } from './inbound-settings.js';

const PAGE_SIZE = 200;

function ruleId(text: string | undefined): number {
  if (!/^\d{1,15}$/.test(text ?? '') || !Number.isSafeInteger(Number(text))) throw new ApiError(ErrorCode.NotFound, 'No such inbound rule.');
  return Number(text);
}

async function rulesPage(ctx: AppContext, c: PageCall, st: { value?: string; error?: FormError } = {}): Promise<string> {
    const offset = /^\d{1,7}$/.test(c.query.offset ?? '') ? Number(c.query.offset) : 0;
    const found = await listRules(ctx, c.server.id, PAGE_SIZE, offset);
    const base = `/console/s/${c.server.id}/inbound/rules`;
    const admin = c.session.user.role === 'admin';
    const body = html`${inboundTabs(c.server.id, 'rules')}<p class="muted">Mail whose From address or domain matches a rule is kept as <strong>Blocked</strong> and not posted to the <a href="/console/s/${c.server.id}/inbound/settings">InboundHookUrl</a>; it can still be bypassed from its page.</p>
<table class="list labelled" id="rules"><thead><tr><th scope="col">Rule</th><th scope="col">ID</th>${admin ? html`<th scope="col"><span class="sr-only">Actions</span></th>` : ''}</tr></thead><tbody>
${found.InboundRules.map(
  (rule) => html`<tr><td><code>${rule.Rule}</code></td><td data-label="ID">${rule.ID}</td>${admin ? html`<td class="actions"><form method="post" action="${base}/${rule.ID}/remove" class="inline">${csrf(c.session)}<button type="submit" aria-label="Remove the rule ${rule.Rule}">Remove</button></form></td>` : ''}</tr>`,
)}</tbody></table>${found.TotalCount === 0 ? html`<p class="empty">No rules: every message is posted.</p>` : ''}
<nav class="pager" aria-label="Pages">${offset > 0 ? html`<a href="${base}${query({ offset: Math.max(0, offset - PAGE_SIZE) || '' })}">Previous</a>` : ''}${offset + PAGE_SIZE < found.TotalCount ? html`<a href="${base}${query({ offset: offset + PAGE_SIZE })}" rel="next">Next</a>` : ''}</nav>
${admin ? html`<h2>Add a rule</h2><form method="post" action="${base}/add" class="stack narrow">${csrf(c.session)}<label for="rule">Email address or domain</label><input id="rule" name="rule" required maxlength="254" placeholder="spammer@example.com or example.com" value="${st.value ?? ''}"${invalidAttrs(st.error, 'rule')}>${besideField(st.error, 'rule')}<button type="submit">Add rule</button></form>` : html`<p class="muted">Only admins change the rules.</p>`}`;
    return page(c.frame('Inbound rules', 'inbound'), body);
}

export function registerInboundRules(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/inbound/rules', (c) => rulesPage(ctx, c));

  r.action('/console/s/:sid/inbound/rules/add', async (c) => {
    let rule;
    try {
      rule = await createRule(ctx, c.server.id, c.body.rule ?? '');
    } catch (err) {
      const error = formError(err, byPrefix([], 'rule'));
      c.reply.status(422);
      return rulesPage(ctx, c, { value: c.body.rule, error });
    }
    return redirectWith(c.reply, `/console/s/${c.server.id}/inbound/rules`, { notice: `Rule '${rule.Rule}' added: mail from it is now blocked.` });
  });
  r.action('/console/s/:sid/inbound/rules/:rid/remove', async (c) => {
    const m = await deleteRule(ctx, c.server.id, ruleId(c.params.rid));
    return redirectWith(c.reply, `/console/s/${c.server.id}/inbound/rules`, { notice: m.Message });
  });
}
