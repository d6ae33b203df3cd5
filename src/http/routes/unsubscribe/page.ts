// The pages a recipient sees after following an unsubscribe link. Plain HTML with no scripts, no external
// resources and a strict CSP; every interpolated value is escaped.
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}
button{font:inherit;padding:.5rem 1.25rem;cursor:pointer}</style></head>
<body><h1>${esc(title)}</h1>${body}</body></html>
`;
}

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

/** Headers for every unsubscribe page: the token in the URL must not leak through Referer or caches. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};
