// The account's console users: everyone sees who they are; admins add one (a password typed, or generated and
// shown once on the answer to the POST, as a token is), change a role, and remove one after a confirmation.
// The account always keeps an admin, and nobody demotes or removes themselves (console-users/account-users.ts).
import { adminsOnly, confirmCard } from '../confirm-page.js';
import type { AppContext } from '../../../domain/app-context.js';
import { ROLES } from '../../../domain/console-users/users.js';
import { addAccountUser, listAccountUsers, removeAccountUser, setUserRole, UserRefusal, type AccountUser } from '../../../domain/console-users/account-users.js';
import { aboveForm, besideField, formError, invalidAttrs, type FieldOf, type FormError } from '../form-errors.js';
import { ConsoleRefusal } from '../guard.js';
import { html } from '../html.js';
import { csrf, page, when } from '../layout.js';
import { redirectWith, type ConsoleRouter, type PageCall } from '../router.js';
import { rowIdOf } from './row-id.js';

const FIELD_NAMES = { Email: 'email', Role: 'role', Password: 'password' } as const;
const userFieldOf: FieldOf = (err) => (err instanceof UserRefusal && err.field ? FIELD_NAMES[err.field] : null);


interface AddForm {
  values: { email: string; role: string };
  error: FormError | null;
}

/** One role select per user, its own form; `error`: a refusal of that user's change, shown beside it. */
function roleCell(c: PageCall, u: AccountUser, error: FormError | null): ReturnType<typeof html> {
  const admin = c.session.user.role === 'admin';
  if (!admin || u.id === c.session.user.id) return html`${u.role}${u.id === c.session.user.id ? html` <span class="muted small">(you)</span>` : ''}`;
  const field = `role-${u.id}`;
  return html`<form method="post" action="/console/users/${u.id}/role" class="inline-row">${csrf(c.session)}<label class="sr-only" for="${field}">Role of ${u.email}</label><select id="${field}" name="role"${invalidAttrs(error, field)}>${ROLES.map((r) => html`<option${r === u.role ? html` selected` : ''}>${r}</option>`)}</select> <button type="submit" aria-label="Change the role of ${u.email}">Change</button>${besideField(error, field)}</form>`;
}

async function usersPage(ctx: AppContext, c: PageCall, add: AddForm, roleError?: FormError | null): Promise<string> {
  const admin = c.session.user.role === 'admin';
  const users = await listAccountUsers(ctx.db, c.session.user.accountId);
  const rows = users.map(
    (u) => html`<tr><td><span class="narrow-label">Email: </span><code class="wrap">${u.email}</code></td><td><span class="narrow-label">Role: </span>${roleCell(c, u, roleError ?? null)}</td><td><span class="narrow-label">Added: </span>${when(u.created_at)}</td>
<td class="actions">${admin && u.id !== c.session.user.id ? html`<a class="danger-link" href="/console/users/${u.id}/remove">Remove</a>` : ''}</td></tr>`,
  );
  const e = add.error;
  const form = admin
    ? html`<section class="card" aria-labelledby="add-user"><h2 id="add-user">Add a user</h2>${aboveForm(e)}<form method="post" action="/console/users" class="stack narrow">${csrf(c.session)}
<label for="user-email">Email</label><input id="user-email" name="email" type="email" autocomplete="off" maxlength="320" value="${add.values.email}"${invalidAttrs(e, 'email')}>${besideField(e, 'email')}
<label for="user-role">Role</label><select id="user-role" name="role"${invalidAttrs(e, 'role')}>${ROLES.map((r) => html`<option${r === add.values.role ? html` selected` : ''}>${r}</option>`)}</select>${besideField(e, 'role')}
<label for="user-password">Password</label><input id="user-password" name="password" type="password" autocomplete="new-password"${invalidAttrs(e, 'password')}><span class="muted small">At least 10 characters. Leave empty to have one generated and shown once.</span>${besideField(e, 'password')}
<button type="submit">Add user</button></form></section>`
    : '';
  const body = html`${aboveForm(roleError)}<p class="muted">Admins change anything of the account; viewers see everything and change nothing.</p>
<table class="list users"><thead><tr><th>Email</th><th>Role</th><th>Added</th><th></th></tr></thead><tbody>${rows}</tbody></table>${form}`;
  return page(c.frame('Console users', 'users'), body);
}

const EMPTY: AddForm = { values: { email: '', role: 'viewer' }, error: null };

export function registerUsers(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/users', async (c) => usersPage(ctx, c, EMPTY));

  r.action('/console/users', async (c) => {
    const values = { email: (c.body.email ?? '').slice(0, 400), role: c.body.role ?? '' };
    try {
      const { user, password, generated } = await addAccountUser(ctx, c.session.user.accountId, { ...values, password: c.body.password ?? '' });
      if (!generated) return redirectWith(c.reply, '/console/users', { notice: `${user.email} added as ${user.role}.` });
      const body = html`<div class="card issued"><p><strong>${user.email}</strong> was added as ${user.role}. Their password is shown only on this page, only this once:</p>
<p class="token-line"><code id="new-password" class="wrap">${password}</code> <button type="button" data-copy="#new-password" aria-label="Copy the new password">Copy</button></p></div>
<p><a href="/console/users">Back to console users</a></p>`;
      return page(c.frame('User added', 'users'), body);
    } catch (err) {
      c.reply.status(422);
      return usersPage(ctx, c, { values, error: formError(err, userFieldOf) });
    }
  });

  r.action('/console/users/:uid/role', async (c) => {
    const id = rowIdOf(c.params.uid);
    try {
      const u = await setUserRole(ctx, c.session.user.accountId, c.session.user.id, id, c.body.role ?? '');
      return redirectWith(c.reply, '/console/users', { notice: `${u.email} is now ${u.role}.` });
    } catch (err) {
      const e = formError(err, userFieldOf);
      c.reply.status(422);
      return usersPage(ctx, c, EMPTY, { field: e.field ? `role-${id}` : null, message: e.message });
    }
  });

  r.page('/console/users/:uid/remove', async (c) => {
    adminsOnly(c.session);
    const u = (await listAccountUsers(ctx.db, c.session.user.accountId)).find((x) => x.id === rowIdOf(c.params.uid));
    if (!u) throw new ConsoleRefusal(404, 'No such console user.');
    const body = confirmCard(c.session, {
      say: html`<p>Remove the console user <strong>${u.email}</strong> (${u.role})?</p><p>They are signed out at once, everywhere.</p>`,
      action: `/console/users/${u.id}/remove`,
      button: 'Remove this user',
      cancel: '/console/users',
    });
    return page(c.frame('Remove console user?', 'users'), body);
  });

  r.action('/console/users/:uid/remove', async (c) => {
    try {
      const u = await removeAccountUser(ctx, c.session.user.accountId, c.session.user.id, rowIdOf(c.params.uid));
      return redirectWith(c.reply, '/console/users', { notice: `${u.email} removed; their sessions ended.` });
    } catch (err) {
      const e = formError(err, userFieldOf);
      c.reply.status(422);
      return usersPage(ctx, c, EMPTY, { field: null, message: e.message });
    }
  });
}
