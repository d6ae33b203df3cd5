// The pages a recipient sees after following an unsubscribe link. Plain HTML with no scripts, no external
// resources and a strict CSP; every interpolated value is escaped.
import { esc, publicPage as page } from '../public/page.js';

export { PAGE_HEADERS } from '../public/page.js';

export function confirmPage(recipient: string): string {
  return page(
    'Unsubscribe',
    `<p>Stop sending these emails to <strong>${esc(recipient)}</strong>?</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
  );
}

export function donePage(recipient: string): string {
  return page('You are unsubscribed', `<p><strong>${esc(recipient)}</strong> will no longer receive these emails.</p>`);
}

export function invalidPage(): string {
  return page('Link not valid', '<p>This unsubscribe link is not valid. Please use the link from the most recent email you received.</p>');
}
