// Classifies a delivery failure into one of the published bounce types (types.ts). Pure: used by the
// delivery worker for SMTP answers and give-ups, and by the DSN/ARF intake for each reported recipient.
//
// The enhanced status code decides first (RFC 3463 class.subject.detail, with the RFC 5248 registry
// additions such as 5.1.10 null MX (RFC 7505) and the 5.7.2x authentication codes of RFC 7372). Codes that
// are known to be overloaded in practice (x.0.0, x.1.0, 5.4.1, x.5.x, x.6.x, x.7.0, x.7.1) are refined by
// the diagnostic text through the rule table in text-rules.ts; the SMTP reply code is the last resort
// (RFC 5321 4.2.2). Rules follow the practice of EmailEngine (lib/delivery-error.js), Haraka and ZoneMTA.
import { textRule } from './text-rules.js';

export interface ClassifyInput {
  /** Enhanced status code, e.g. "5.1.1" (a longer string containing one is accepted too). */
  status?: string;
  /** Basic SMTP reply code, e.g. 550. */
  code?: number;
  /** Diagnostic text: the SMTP reply or a DSN's Diagnostic-Code. */
  text?: string;
  /** DSN Action (RFC 3464 2.3.3): failed | delayed | delivered | relayed | expanded. */
  action?: string;
}

export interface Classification {
  /** A key of BOUNCE_TYPES. */
  type: string;
  /** True when retrying cannot help (class 5, reply 5xx or Action failed). */
  permanent: boolean;
}

const STATUS_RE = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;

/** Finds an enhanced status code in a string ("5.1.1", "smtp; 550 5.1.1 ..."). */
export function parseStatus(s: string | undefined): [number, number, number] | null {
  if (!s) return null;
  const m = STATUS_RE.exec(s);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** Finds a basic reply code at the start of a diagnostic ("smtp; 550 ...", "550-5.1.1 ..."). */
export function parseReplyCode(s: string | undefined): number | null {
  if (!s) return null;
  const m = /^(?:\s*(?:smtp|x-[a-z-]+)\s*;)?\s*([245]\d\d)(?=[\s-]|$)/i.exec(s);
  return m ? Number(m[1]) : null;
}

/**
 * The type an enhanced status code alone implies, or null when the code is generic or overloaded and the
 * text must decide. `text` is used only to refine within a subject (5.7.x policy -> DMARC / spam).
 */
function byStatus(cls: number, subject: number, detail: number, text: string): string | null {
  if (cls === 4) {
    // Temporary: the message may still get through. Mailbox full is reported as a soft bounce (it is the
    // same condition as 5.2.2); routing/DNS trouble as a DNS error; everything else is a delay.
    if (subject === 2 && detail === 2) return 'SoftBounce';
    if (subject === 4 && (detail === 3 || detail === 4)) return 'DnsError';
    if (subject === 1 && detail === 2 && /\b(dns|domain|host|mx)\b/i.test(text)) return 'DnsError';
    return 'Transient';
  }
  if (cls !== 5) return null;
  switch (subject) {
    case 1: // addressing (RFC 3463 3.2)
      if (detail === 3) return 'BadEmailAddress'; // bad destination mailbox address syntax
      if (detail === 7 || detail === 8) return 'Blocked'; // our sender address refused: not the recipient's fault
      if (detail === 0) return null;
      return 'HardBounce'; // 5.1.1 mailbox, 5.1.2 system, 5.1.4 ambiguous, 5.1.6 moved, 5.1.10 null MX ...
    case 2: // mailbox (3.3)
      if (detail === 0) return null;
      return 'SoftBounce'; // 5.2.1 disabled, 5.2.2 full, 5.2.3 too long for the mailbox, 5.2.4 list expansion
    case 3: // mail system (3.4): full, not accepting, too big, misconfigured
      return 'SoftBounce';
    case 4: // network and routing (3.5)
      if (detail === 3 || detail === 4) return 'DnsError';
      if (detail === 6) return 'SoftBounce'; // routing loop
      if (detail === 7) return 'SoftBounce'; // delivery time expired
      return null; // 5.4.1 is Exchange Online's "Recipient address rejected: Access denied"; decided by text
    case 5: // protocol (3.6)
      if (detail === 3) return 'SoftBounce'; // too many recipients
      return null;
    case 6: // content (3.7)
      return null;
    case 7: // security and policy (3.8, RFC 7372)
      if (detail === 26) return 'DMARCPolicy'; // multiple authentication checks failed (DMARC)
      if (detail === 13) return 'SoftBounce'; // user account disabled
      if (detail === 17 || detail === 18) return 'HardBounce'; // mailbox / domain owner has changed (RFC 7293)
      if (detail === 0 || detail === 1) return null;
      if (/\bdmarc\b/i.test(text)) return 'DMARCPolicy';
      if (/\b(spam|bulk|unsolicited|junk)\b/i.test(text)) return 'SpamNotification';
      return 'Blocked'; // relay denied, authentication (5.7.20-27), rate/reputation (5.7.28) ...
    default:
      return null;
  }
}

/** Fallback by the basic reply code (RFC 5321 4.2.2/4.2.3) when neither status nor text told anything. */
function byReplyCode(code: number): string {
  if (code >= 400 && code < 500) return 'Transient';
  if (code === 550 || code === 551 || code === 553) return 'HardBounce'; // mailbox unavailable / not local / name not allowed
  if (code === 552) return 'SoftBounce'; // exceeded storage allocation
  return 'Unknown';
}

export function classifyStatus(input: ClassifyInput): Classification {
  const text = (input.text ?? '').replace(/\s+/g, ' ').trim();
  const action = (input.action ?? '').trim().toLowerCase();
  const status = parseStatus(input.status) ?? parseStatus(text);
  const code = input.code ?? parseReplyCode(text);

  // A delayed DSN says the message is still queued: never a suppression (RFC 3464 2.3.3).
  if (action === 'delayed') return { type: 'Transient', permanent: false };

  let permanent: boolean;
  if (status) permanent = status[0] === 5;
  else if (code) permanent = code >= 500;
  else if (action === 'failed') permanent = true;
  else permanent = false;
  if (action === 'failed') permanent = true;

  if (status && status[0] === 2) return { type: 'Unknown', permanent: false };

  const cls = status ? (permanent ? 5 : status[0]) : 0;
  const fromStatus = status ? byStatus(cls, status[1], status[2], text) : null;
  if (fromStatus && (cls === 4 || (status && !isOverloaded(status)))) return { type: fromStatus, permanent };

  const fromText = textRule(text);
  if (fromText) {
    // A temporary failure never becomes a suppressing type on the strength of its text alone.
    if (!permanent && (fromText === 'HardBounce' || fromText === 'BadEmailAddress')) return { type: 'Transient', permanent };
    return { type: fromText, permanent };
  }
  if (fromStatus) return { type: fromStatus, permanent };
  if (status && cls === 5) {
    if (status[1] === 7) return { type: 'Blocked', permanent };
    if (status[1] === 1) return { type: 'HardBounce', permanent };
    if (status[1] === 6) return { type: 'SoftBounce', permanent };
  }
  if (code) return { type: byReplyCode(code), permanent };
  return { type: permanent ? 'Unknown' : 'Transient', permanent };
}

/** Codes whose meaning servers stretch: the text is consulted before trusting them. */
function isOverloaded([, subject, detail]: [number, number, number]): boolean {
  return detail === 0 || (subject === 4 && detail === 1) || subject === 5 || subject === 6 || (subject === 7 && detail <= 1);
}
