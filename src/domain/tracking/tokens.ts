// Tracking URLs. Each carries its facts (message, recipient and, for a click, the original link and where it
// sat) encrypted under a purpose-bound key (ctx.secrets.encrypt, AES-GCM): nobody without the key can read
// one (link scanners and proxies on the way see neither the address nor the target) or make one, so the
// click redirect only ever leads to a link that was in the message we made it for (no open redirect), and
// nothing needs to be stored per link at send time. Tokens of mail sent before (readable base64url JSON with
// an HMAC, ctx.secrets.sign; they hold a '.', the new ones never do) are still read, so every link already
// sent keeps working.
import type { AppContext } from '../app-context.js';

export type ClickLocation = 'HTML' | 'Text';

export interface OpenToken {
  messageId: string;
  recipient: string;
}

export interface ClickToken extends OpenToken {
  link: string;
  location: ClickLocation;
}

/** Path prefixes of the public tracking routes (src/http/routes/tracking/routes.ts). */
export const OPEN_PATH = '/t/o/';
export const CLICK_PATH = '/t/c/';

/** `base`: the sending domain's verified tracking host (https://links.example.com), else the public URL. */
export function openUrl(ctx: AppContext, t: OpenToken, base = ctx.config.publicUrl): string {
  return `${base}${OPEN_PATH}${ctx.secrets.encrypt('open', JSON.stringify([t.messageId, t.recipient]))}`;
}

export function clickUrl(ctx: AppContext, t: ClickToken, base = ctx.config.publicUrl): string {
  const data = JSON.stringify([t.messageId, t.recipient, t.link, t.location === 'Text' ? 'T' : 'H']);
  return `${base}${CLICK_PATH}${ctx.secrets.encrypt('click', data)}`;
}

/** A token's data: encrypted (current) or signed (mail sent before tokens were opaque). */
const tokenData = (ctx: AppContext, purpose: string, token: string): string | null =>
  token.includes('.') ? ctx.secrets.verify(purpose, token) : ctx.secrets.decrypt(purpose, token);

const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** The facts of a pixel token, or null when it is forged, truncated or malformed. */
export function readOpenToken(ctx: AppContext, token: string): OpenToken | null {
  const a = parse(tokenData(ctx, 'open', token));
  if (!a || a.length !== 2 || !isStr(a[0]) || !isStr(a[1])) return null;
  return { messageId: a[0], recipient: a[1] };
}

/** The facts of a click token, or null when it is forged, truncated or malformed. */
export function readClickToken(ctx: AppContext, token: string): ClickToken | null {
  const a = parse(tokenData(ctx, 'click', token));
  if (!a || a.length !== 4 || !isStr(a[0]) || !isStr(a[1]) || !isStr(a[2]) || (a[3] !== 'H' && a[3] !== 'T')) return null;
  // Only http(s) links are ever signed; checked again so that a key leak cannot turn into javascript: URLs.
  if (!/^https?:\/\//i.test(a[2])) return null;
  return { messageId: a[0], recipient: a[1], link: a[2], location: a[3] === 'T' ? 'Text' : 'HTML' };
}

function parse(data: string | null): unknown[] | null {
  if (data === null) return null;
  try {
    const v: unknown = JSON.parse(data);
    return Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}
