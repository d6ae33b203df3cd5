// Plain-text bounces: the non-delivery reports of MTAs and providers that send no RFC 3464 DSN (qmail,
// Exim before multipart reports, Yahoo's "Sorry, we were unable to deliver your message"). They are
// recognized by sender and subject, and read with the diagnostic-text rule table.
import { classifyStatus } from './classify.js';
import type { RecipientResult } from './recipient-result.js';
import { textRule } from './text-rules.js';
import { addressesIn } from './addresses-in.js';

const BOUNCE_SENDER = /^(mailer-daemon|postmaster|mail-daemon|mailer|mail\.delivery\.system|double-bounce|bounce[s]?)@/i;
const BOUNCE_SUBJECT =
  /undeliver|delivery (status notification|failure|failed|report|problem)|returned mail|failure notice|mail delivery (failed|failure|system|subsystem)|non[- ]?delivery|could not be delivered|delivery has failed|message not delivered|delayed mail|delivery delayed|warning: could not send/i;

export function looksLikeBounce(from: string, subject: string): boolean {
  return BOUNCE_SENDER.test(from) || BOUNCE_SUBJECT.test(subject);
}

// Where the returned copy of the original message starts (Exim, qmail, Postfix, Sendmail wordings): a line
// that, after leading whitespace, is dashes followed somewhere by one of these phrases, or begins with one of
// the fixed separators. Scanned line by line: as one multiline pattern (/^\s*-{2,}.*(...)/im) it re-read each
// line for every split of its dashes, and each run of blank lines from every line start (quadratic).
const ORIGINAL_PHRASE = /copy of the (original )?message|original message|below this line|returned message|message headers? follow|header of the original message/i;
const ORIGINAL_FIXED = /------ This is a copy|--- Below this line/iy;
const LINE_END = /[\n\r\u2028\u2029]/g;

/** Index where the returned original starts (the line start a multiline `^\s*` would match from), or -1. */
function originalStarts(body: string): number {
  let p = 0;
  while (p < body.length) {
    let q = p;
    while (q < body.length && /\s/.test(body[q]!)) q++;
    LINE_END.lastIndex = q;
    const end = LINE_END.exec(body)?.index ?? body.length;
    const line = body.slice(q, end);
    ORIGINAL_FIXED.lastIndex = 0;
    if ((line.startsWith('--') && ORIGINAL_PHRASE.test(line.slice(2))) || ORIGINAL_FIXED.test(line)) return p;
    p = end + 1;
  }
  return -1;
}

const DELAYED = /will (continue|keep) (trying|to try|attempting)|has not (yet )?been delivered|not yet been delivered|still (trying|being retried)|delivery (is |has been )?delayed|will retry|retry until/i;
const GAVE_UP = /permanent(ly)?|gave up|giving up|could not be delivered|couldn'?t be delivered|unable to deliver|failed:|retry timeout exceeded|delivery has failed/i;
// No `$`: the lines hold no line break, and with one (U+2028) the anchor made each start position re-read the rest.
const CODE_LINE = /(?:^|[\s:(])([45]\d\d)(?=[\s:-])(.*)/;

/** The returned copy of the original message (its header section first), when the bounce quotes one. */
export function returnedCopy(body: string): string {
  const cut = originalStarts(body);
  if (cut < 0) return '';
  const rest = body.slice(cut);
  return rest.slice(rest.indexOf('\n') + 1).replace(/^\s*\n/, '');
}

export function analysePlainBounce(body: string, from: string): RecipientResult | null {
  const cut = originalStarts(body);
  const report = (cut > 0 ? body.slice(0, cut) : body).replace(/\r\n?/g, '\n');
  if (!report.trim()) return null;

  const lines = report.split('\n').map((l) => l.trim());
  let diagnostic: string | null = null;
  for (const l of lines) {
    const m = CODE_LINE.exec(l);
    if (m) {
      diagnostic = `${m[1]}${m[2]}`.replace(/^(\d{3}):/, '$1').trim();
      break;
    }
  }
  if (!diagnostic) diagnostic = lines.find((l) => l && textRule(l) !== null) ?? null;

  const delayed = DELAYED.test(report) && !GAVE_UP.test(report);
  const action = delayed ? 'delayed' : 'failed';
  const c = classifyStatus({ text: diagnostic ?? report.slice(0, 2000), action });

  const fromLower = from.toLowerCase();
  const email =
    addressesIn(report).find((a) => a.toLowerCase() !== fromLower && !/^(mailer-daemon|postmaster)@/i.test(a)) ?? null;
  return {
    email,
    action,
    status: null,
    diagnostic,
    remoteMta: null,
    ...c,
    details: (diagnostic ?? (delayed ? 'Delivery delayed' : 'Undeliverable')).slice(0, 1000),
  };
}
