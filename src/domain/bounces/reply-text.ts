// The part of a reply its author wrote: the text body (or the HTML body made plain) up to the quoted
// original. Replies quote our message, and our message may well say "unsubscribe" (a broadcast footer) or
// mention an address, so the request and address-change rules must never read the quote.
import type { Email } from 'postal-mime';

/** Where a quote or a forwarded/attached original starts, in the wording of common mail clients. */
const QUOTE_START =
  /^\s*(>|-{2,}\s*(original message|forwarded message|urspr(ü|ue)ngliche nachricht|message d'origine)|_{10,}|(on|am|le|el) [^\n]{0,200}(wrote|schrieb|a écrit|escribió)[^\n]{0,100}:[ \t]*$|(from|von|de): .+\n\s*(sent|gesendet|envoyé|date|to): )/im;
/** A signature separator (RFC 3676 4.3: "-- " on a line of its own). */
const SIGNATURE = /^-- ?$/m;

export const REPLY_TEXT_LIMIT = 4000;

function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<blockquote[\s\S]*$/i, '') // a quoted original in HTML replies
    .replace(/<br\s*\/?>|<\/(p|div|li|tr|h\d)>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/gi, ' ')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;|&apos;/gi, "'")
    .replace(/&amp;/gi, '&');
}

/** The author's own text, at most REPLY_TEXT_LIMIT characters, with LF line ends. */
export function replyText(email: Email): string {
  const body = (email.text && email.text.trim() ? email.text : email.html ? htmlToText(email.html) : '').replace(/\r\n?/g, '\n');
  let end = body.length;
  for (const re of [QUOTE_START, SIGNATURE]) {
    const at = body.search(re);
    if (at >= 0 && at < end) end = at;
  }
  return body.slice(0, Math.min(end, REPLY_TEXT_LIMIT));
}

/** The first line that holds anything, trimmed (greetings are not skipped: a command stands alone). */
export function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  );
}
