// The confirmation every deletion passes through: a GET that changes nothing and shows what goes with the
// change, then a POST carrying the session's CSRF token (the router checks it, and the role, again). The GET
// is refused to viewers too, so a viewer is not offered a button that can only be refused.
import type { Session } from '../../domain/console-users/sessions.js';
import { ConsoleRefusal } from './guard.js';
import { html, type Html } from './html.js';
import { csrf } from './layout.js';

/** Throws the viewers' 403 unless the session is an admin's. */
export function adminsOnly(session: Session): void {
  if (session.user.role !== 'admin') throw new ConsoleRefusal(403, 'Viewers can look at everything but change nothing. Ask an admin.');
}

export interface Confirmation {
  /** The question and what goes with the change, as paragraphs. */
  say: Html;
  /** Where the POST goes. */
  action: string;
  /** The button's words ("Delete this webhook"). */
  button: string;
  /** Where Cancel leads. */
  cancel: string;
  /** Hidden fields the POST carries on (the list a message was opened from, say). */
  hidden?: Record<string, string>;
}

/** The danger card: the question, then the one-button form and Cancel. */
export function confirmCard(session: Session, o: Confirmation): Html {
  const hidden = Object.entries(o.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<div class="card danger">${o.say}
<form method="post" action="${o.action}" class="inline">${csrf(session)}${hidden}<button type="submit" class="danger">${o.button}</button></form> <a href="${o.cancel}">Cancel</a></div>`;
}
