// "Send a test post": the chosen trigger's sample notification posted to a webhook's URL (domain/webhooks/
// test-post.ts), and the answer shown on the page: status, time, the first bytes of the body. Shared by the
// inbound hook's test post (inbound-settings.ts), whose result has the same shape.
import type { PostResult } from '../../../domain/webhooks/http-post.js';
import { html, type Html } from '../html.js';
import { csrf } from '../layout.js';
import type { PageCall } from '../router.js';
import { TRIGGERS } from './webhook-form.js';

/** The answer of a test post, inline; every byte of it came from the receiver, so all of it is escaped. */
export function testPostOutcome(r: PostResult, payload: string): Html {
  const ok = r.status !== null && r.status >= 200 && r.status < 300;
  return html`<div class="card ${ok ? 'issued' : 'failed'}" id="test-post-result" role="status">
<p><strong>${ok ? 'Test post delivered' : 'Test post failed'}</strong>: ${r.status === null ? html`no answer (${r.error ?? 'network error'})` : html`HTTP <code>${r.status}</code>`} in ${r.durationMs} ms.</p>
${r.body ? html`<p class="muted small">The answer${r.body.length >= 512 ? ', its first 512 bytes' : ''}:</p><pre class="excerpt">${r.body}</pre>` : r.status !== null ? html`<p class="muted small">The answer had no body.</p>` : ''}
<details><summary>What was posted</summary><pre class="excerpt">${payload}</pre></details></div>`;
}

/** The webhook page's test-post form: the trigger whose sample is sent. */
export function webhookTestForm(c: PageCall, base: string, chosen = 'Delivery'): Html {
  return html`<form method="post" action="${base}/test" class="filters" aria-label="Send a test post">${csrf(c.session)}
<div class="field"><label for="t-trigger">Sample of</label><select id="t-trigger" name="trigger">${TRIGGERS.map((k) => html`<option${k === chosen ? html` selected` : ''}>${k}</option>`)}</select></div>
<div class="field"><button type="submit">Send a test post</button></div></form>`;
}
