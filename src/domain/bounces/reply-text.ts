// The part of a reply its author wrote: the text body (or the HTML body made plain) up to the quoted
// original. Replies quote our message, and our message may well say "unsubscribe" (a broadcast footer) or
// mention an address, so the request and address-change rules must never read the quote.
import type { Email } from 'postal-mime';

/** Where a quote or a forwarded/attached original starts, in the wording of common mail clients. */
const QUOTE_START =
  /^[ \t]*(>|-{2,}\s*(original message|forwarded message|urspr(ü|ue)ngliche nachricht|message d'origine)|_{10,}|(on|am|le|el) [^\n]{0,200}(wrote|schrieb|a écrit|escribió)[^\n]{0,100}:[ \t]*$|(from|von|de): .+\n\s*(sent|gesendet|envoyé|date|to): )/im;
/** A signature separator (RFC 3676 4.3: "-- " on a line of its own). */
const SIGNATURE = /^-- ?$/m;

export const REPLY_TEXT_LIMIT = 4000;

/** Removes each `<script>...</script>` and `<style>...</style>`, scanning (the lazy pattern was cubic). */
function withoutScripts(html: string): string {
  // Case-insensitive patterns, not toLowerCase(): lowering can change the length ('İ'), and so the offsets.
  const open = /<(script|style)/gi;
  const closers = { script: /<\/script>/gi, style: /<\/style>/gi };
  const unclosed = new Set<string>(); // no closing tag after some point: none after any later opening either
  let out = '';
  let copied = 0;
  for (let m = open.exec(html); m; m = open.exec(html)) {
    const name = m[1]!.toLowerCase() as keyof typeof closers;
    const closer = closers[name];
    closer.lastIndex = m.index + m[0].length;
    const close = unclosed.has(name) ? null : closer.exec(html);
    if (!close) {
      unclosed.add(name);
      continue;
    }
    out += html.slice(copied, m.index);
    copied = close.index + close[0].length;
    open.lastIndex = copied;
  }
  return out + html.slice(copied);
}

/** Removes every `<...>` tag (as /<[^>]*>/g, without rereading the rest of the text at each unclosed '<'). */
function withoutTags(html: string): string {
  let out = '';
  let copied = 0;
  for (let lt = html.indexOf('<'); lt !== -1; lt = html.indexOf('<', copied)) {
    const gt = html.indexOf('>', lt);
    if (gt === -1) break;
    out += html.slice(copied, lt);
    copied = gt + 1;
  }
  return out + html.slice(copied);
}

function htmlToText(html: string): string {
  const visible = withoutScripts(html);
  const quote = visible.search(/<blockquote/i); // a quoted original in HTML replies
  return withoutTags((quote === -1 ? visible : visible.slice(0, quote)).replace(/<br\s*\/?>|<\/(p|div|li|tr|h\d)>/gi, '\n'))
    .replace(/&nbsp;/gi, ' ')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;|&apos;/gi, "'")
    .replace(/&amp;/gi, '&');
}

/** The author's own text, at most REPLY_TEXT_LIMIT characters, with LF line ends. */
export function replyText(email: Email): string {
  const full = email.text && email.text.trim() ? email.text : email.html ? htmlToText(email.html) : '';
  // Only the first REPLY_TEXT_LIMIT characters are kept, so only they (and a margin for a quote header that
  // spans the limit) are searched: the quote patterns then cost a bounded time whatever the message's size.
  const body = full.slice(0, REPLY_TEXT_LIMIT + 1000).replace(/\r\n?/g, '\n');
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
