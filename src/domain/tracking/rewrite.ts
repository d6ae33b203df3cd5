// Contract between delivery and tracking: delivery calls this once per recipient copy when the message
// has open or link tracking on. It adds the recipient's open pixel to the HTML part and turns each tracked
// link into the recipient's signed click URL (tokens.ts), per TrackLinks (None, HtmlAndText, HtmlOnly,
// TextOnly).
import type { AppContext } from '../app-context.js';
import { insertPixel, rewriteHtmlLinks } from './html.js';
import { isTrackableLink } from './links.js';
import { rewriteTextLinks } from './text.js';
import { clickUrl, openUrl, type ClickLocation } from './tokens.js';

export interface TrackingInput {
  messageId: string;
  recipient: string;
  html: string | null;
  text: string | null;
  trackOpens: boolean;
  /** None | HtmlAndText | HtmlOnly | TextOnly */
  trackLinks: string;
  /** The From domain's verified tracking host as https://host (domains/tracking-domain.ts); null: the public URL. */
  baseUrl?: string | null;
  /** Called once per link turned into a click redirect (delivery counts them: TotalTrackedLinksSent). */
  onTrackedLink?: () => void;
}

export function applyTracking(ctx: AppContext, input: TrackingInput): { html: string | null; text: string | null } {
  const { messageId, recipient } = input;
  const base = input.baseUrl ?? ctx.config.publicUrl;
  const rewriter = (location: ClickLocation) => (link: string) => {
    if (!isTrackableLink(ctx, link, input.baseUrl ?? null)) return null;
    input.onTrackedLink?.();
    return clickUrl(ctx, { messageId, recipient, link, location }, base);
  };
  let { html, text } = input;
  const mode = input.trackLinks.toLowerCase();
  if (html !== null && (mode === 'htmlandtext' || mode === 'htmlonly')) html = rewriteHtmlLinks(html, rewriter('HTML'));
  if (text !== null && (mode === 'htmlandtext' || mode === 'textonly')) text = rewriteTextLinks(text, rewriter('Text'));
  // The pixel goes in last, so it is never mistaken for a link; a text-only message has nowhere to put it.
  if (html !== null && input.trackOpens) html = insertPixel(html, openUrl(ctx, { messageId, recipient }, base));
  return { html, text };
}
