// One inbound message: the parsed fields, why it was blocked, mailroom's authentication and spam verdicts,
// the stripped reply, the HTML body in a sandboxed frame under the same strict policy as the outbound message
// page (no script at all, remote images only when asked for), the text body, every header, the attachments
// by name and size, and every POST to the InboundHookUrl with its answer. Admins bypass a Blocked message
// and retry a Failed one through the domain functions of PUT /messages/inbound/{id}/bypass and /retry.
import type { AppContext } from '../../../domain/app-context.js';
import { INBOUND_STATUS } from '../../../domain/inbound/hook-queue.js';
import { bypassInbound, inboundDetails, retryInbound } from '../../../domain/inbound/query.js';
import { html, query, showControls as v, type Html } from '../html.js';
import { csrf, page, when } from '../layout.js';
import { redirectWith, type ConsoleRouter } from '../router.js';
import { bodyCsp } from './message.js';
import { clippedPre } from '../clip.js';

type Details = Awaited<ReturnType<typeof inboundDetails>>;
type Addr = { Email: string; Name: string };

const addresses = (list: Addr[]): Html => html`${list.map((a, i) => html`${i ? ', ' : ''}${a.Name ? html`<bdi>${v(a.Name)}</bdi> ` : ''}&lt;<bdi>${v(a.Email)}</bdi>&gt;`)}`;

/** The verdicts mailroom added on receipt (authserv-id = the inbound domain; others' are just headers). */
function verdicts(m: Details, inboundDomain: string): Html {
  const own = m.Headers.filter(
    (h) => (/^authentication-results$/i.test(h.Name) && h.Value.trim().toLowerCase().startsWith(`${inboundDomain.toLowerCase()};`)) || /^received-spf$/i.test(h.Name),
  );
  // X-Spam-* are mailroom's only when it scored the message (then a sender's were removed, own-headers.ts);
  // otherwise they are whatever the sender wrote, and stay among the headers.
  const spam = m.SpamScore === null ? [] : m.Headers.filter((h) => /^x-spam-(status|score|tests)$/i.test(h.Name));
  return html`<dl class="summary verdicts">
${own.map((h) => html`<dt>${h.Name}</dt><dd><code class="field-value">${h.Value}</code></dd>`)}
<dt>Spam score</dt><dd>${m.SpamScore === null ? html`<span class="muted">not scored (no spamd configured)</span>` : String(m.SpamScore)}</dd>
${spam.map((h) => html`<dt>${h.Name}</dt><dd><code class="field-value">${h.Value}</code></dd>`)}
</dl>`;
}

function hookLog(m: Details): Html {
  if (m.HookAttempts.length === 0) {
    const why =
      m.Status === INBOUND_STATUS.blocked
        ? 'Not posted: blocked messages are not posted unless bypassed.'
        : m.Status === INBOUND_STATUS.processed
          ? 'Not posted: the server had no InboundHookUrl when it arrived, so it is kept for the API and this page only.'
          : 'Not posted yet: it is queued for the InboundHookUrl.';
    return html`<p class="muted" id="hook-none">${why}</p>`;
  }
  return html`<table class="list labelled" id="hook-log"><thead><tr><th scope="col">Attempted</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">HTTP status</th><th scope="col">Time</th><th scope="col">Response</th></tr></thead><tbody>
${m.HookAttempts.map(
  (a) => html`<tr><td class="nowrap">${when(a.AttemptedAt)}</td><td data-label="Attempt">${a.Attempt}</td><td><span class="status status-${a.Outcome.toLowerCase()}">${a.Outcome}</span></td><td data-label="HTTP status">${a.ResponseCode ?? 'no answer'}</td><td class="nowrap" data-label="Time">${a.DurationMs} ms</td>
<td>${a.Response ? html`<pre class="excerpt">${v(a.Response)}</pre>` : a.Error ? html`<span class="muted">${a.Error.slice(0, 600)}</span>` : html`<span class="muted">(empty)</span>`}</td></tr>`,
)}</tbody></table>`;
}

export function registerInboundMessage(r: ConsoleRouter, ctx: AppContext): void {
  r.page('/console/s/:sid/inbound/messages/:mid', async (c) => {
    const m = await inboundDetails(ctx, c.server.id, c.params.mid!, { whole: false });
    const base = `/console/s/${c.server.id}/inbound/messages/${m.MessageID}`;
    const images = c.query.images === '1';
    const admin = c.session.user.role === 'admin';
    const action = (verb: string, label: string) =>
      admin ? html`<form method="post" action="${base}/${verb}" class="inline">${csrf(c.session)}<button type="submit" id="${verb}-button">${label}</button></form>` : html`<span class="muted">An admin can ${verb} this message.</span>`;
    const body = html`
${m.Status === INBOUND_STATUS.blocked ? html`<div class="card blocked" role="note"><h2>Blocked</h2><p id="blocked-reason">${m.BlockedReason || 'Blocked.'}</p><p>Bypass posts it to the InboundHookUrl anyway. ${action('bypass', 'Bypass and post it')}</p></div>` : ''}
${m.Status === INBOUND_STATUS.failed ? html`<div class="card failed" role="note"><h2>Failed</h2><p>The InboundHookUrl did not take it after ${m.HookAttempts.length} attempt${m.HookAttempts.length === 1 ? '' : 's'}. ${action('retry', 'Retry posting it')}</p></div>` : ''}
<dl class="summary">
  <dt>From</dt><dd>${addresses([m.FromFull])}</dd>
  <dt>To</dt><dd>${addresses(m.ToFull)}</dd>
  ${m.CcFull.length ? html`<dt>Cc</dt><dd>${addresses(m.CcFull)}</dd>` : ''}${m.BccFull.length ? html`<dt>Bcc</dt><dd>${addresses(m.BccFull)}</dd>` : ''}
  ${m.ReplyTo ? html`<dt>Reply-To</dt><dd><bdi>${v(m.ReplyTo)}</bdi></dd>` : ''}
  <dt>Subject</dt><dd><bdi>${v(m.Subject)}</bdi></dd>
  <dt>Date</dt><dd><bdi>${v(m.Date)}</bdi></dd><dt>Received</dt><dd>${when(m.ReceivedAt)}</dd>
  <dt>Status</dt><dd><span class="status status-${m.Status.toLowerCase()}">${m.Status}</span></dd>
  <dt>Original recipient</dt><dd><bdi>${v(m.OriginalRecipient)}</bdi></dd>
  <dt>MailboxHash</dt><dd><bdi>${v(m.MailboxHash)}</bdi></dd><dt>Tag</dt><dd><bdi>${v(m.Tag)}</bdi></dd>
  <dt>Stream</dt><dd>${m.MessageStream}</dd><dt>Message ID</dt><dd><code>${m.MessageID}</code></dd>
</dl>
<h2>Authentication and spam</h2>${verdicts(m, ctx.config.inboundDomain)}
<h2>Posts to the InboundHookUrl</h2>${hookLog(m)}
<h2>Stripped reply</h2>${clippedPre(m.StrippedTextReply || '(none found)', `${base}/text`, { id: 'stripped-reply' })}
<h2>Content</h2>
${
  m.HtmlBody
    ? html`<div class="toolbar" role="group" aria-label="Preview options">${images ? html`<span>Remote images shown.</span> <a href="${base}">Block them</a>` : html`<span>Remote images are blocked.</span> <a href="${base}${query({ images: '1' })}" id="load-images">Load remote images</a>`}</div>
<iframe id="html-preview" class="preview" title="HTML body of the message" sandbox src="${base}/body${query({ images: images ? '1' : '' })}"></iframe>`
    : html`<p class="muted">No HTML part.</p>`
}
<details${m.HtmlBody ? '' : html` open`}><summary>Text body</summary>${clippedPre(m.TextBody || '(no text part)', `${base}/text`, { class: 'text-part' })}</details>
<details><summary>Headers (${m.Headers.length})</summary><table class="list headers"><tbody>${m.Headers.map((h) => html`<tr><th scope="row">${v(h.Name)}</th><td><code class="field-value">${v(h.Value)}</code></td></tr>`)}</tbody></table></details>
<h2>Attachments</h2>
${m.Attachments.length ? html`<ul class="attachments">${m.Attachments.map((a) => html`<li><bdi>${v(a.Name)}</bdi> <span class="muted">(${a.ContentType}, ${a.ContentLength.toLocaleString('en')} bytes)</span></li>`)}</ul>` : html`<p class="muted">None.</p>`}`;
    return page(c.frame(v(m.Subject) || '(no subject)', 'inbound'), body);
  });

  // The text body whole, as plain text (the page shows its start: clip.ts).
  r.page('/console/s/:sid/inbound/messages/:mid/text', async (c) => {
    const m = await inboundDetails(ctx, c.server.id, c.params.mid!, { whole: false });
    c.reply.type('text/plain; charset=utf-8').send(m.TextBody);
  });

  // The HTML body alone, for the sandboxed frame: no script, no remote loads unless asked for.
  r.page('/console/s/:sid/inbound/messages/:mid/body', async (c) => {
    const m = await inboundDetails(ctx, c.server.id, c.params.mid!, { whole: false });
    c.reply.header('content-security-policy', bodyCsp(c.query.images === '1')).header('x-frame-options', 'SAMEORIGIN');
    return m.HtmlBody;
  });

  r.action('/console/s/:sid/inbound/messages/:mid/bypass', async (c) => {
    const m = await bypassInbound(ctx, c.server.id, c.params.mid!);
    return redirectWith(c.reply, `/console/s/${c.server.id}/inbound/messages/${c.params.mid!.trim().toLowerCase()}`, { notice: `${m.Message} It is queued for the InboundHookUrl.` });
  });
  r.action('/console/s/:sid/inbound/messages/:mid/retry', async (c) => {
    const m = await retryInbound(ctx, c.server.id, c.params.mid!);
    return redirectWith(c.reply, `/console/s/${c.server.id}/inbound/messages/${c.params.mid!.trim().toLowerCase()}`, { notice: `${m.Message} It is queued for the InboundHookUrl.` });
  });
}
