// Which links get a tracking redirect. Left alone: anything not http(s) (mailto:, tel:, #anchors, cid:,
// relative links), links into mailroom itself (unsubscribe and confirmation pages live under the public
// URL or the sending domain's tracking host, and the List-Unsubscribe URL must reach its target directly, RFC 8058), any link that looks like an
// unsubscribe link (mailbox providers and users expect it to work without a detour), and links too long to
// fit in a signed token.
import type { AppContext } from '../app-context.js';

export const MAX_TRACKED_LINK = 2000;

export function isTrackableLink(ctx: AppContext, link: string, base: string | null = null): boolean {
  if (link.length > MAX_TRACKED_LINK) return false;
  if (!/^https?:\/\/[^\s/?#]/i.test(link)) return false;
  const lower = link.toLowerCase();
  if (lower.startsWith(`${ctx.config.publicUrl.toLowerCase()}/`)) return false;
  if (base !== null && lower.startsWith(`${base.toLowerCase()}/`)) return false;
  if (/unsubscribe/i.test(link)) return false;
  return true;
}
