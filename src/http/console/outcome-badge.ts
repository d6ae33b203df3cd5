// A message's outcome as a badge (domain/messages/outcome.ts): the label, and "1 of 3" when only some of
// its recipients met it.
import type { Outcome } from '../../domain/messages/outcome.js';
import { html, type Html } from './html.js';

export function outcomeBadge(o: Outcome): Html {
  return html`<span class="status status-${o.kind}">${o.label}</span>${o.of ? html` <span class="muted">${o.of.count} of ${o.of.total}</span>` : ''}`;
}
