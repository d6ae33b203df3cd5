// Mail in which the recipient asks something of the sender instead of reporting a failure
// (docs/reference/bounces.md, "Types and codes": Unsubscribe 16, Subscribe 32, AddressChange 128):
//   - AddressChange: a notice that the recipient's address changed ("my new address is ...", "this address
//     is no longer in use, please update your records"), usually an auto-reply;
//   - Unsubscribe / Subscribe: a message whose subject, or the first line its author wrote, is a list
//     command ("unsubscribe", "remove", "subscribe"): what a person sends to stop or start mail, and the
//     subject the RFC 2369 mailto: List-Unsubscribe convention produces.
// None of these types is inactive in the published list (HardBounce, SpamComplaint, ManuallyDeactivated,
// BadEmailAddress), so they are recorded and notified (Bounce webhook) and never suppress: the customer
// decides. Nor do they say the message was undelivered.
import type { Email } from 'postal-mime';
import { isAutoReply } from './auto-reply.js';
import { firstLine, replyText } from './reply-text.js';
import { addressesIn } from './addresses-in.js';


const CHANGE_SUBJECT =
  /\b(change of (e-?mail |mail )?address|(e-?mail |mail )?address (change|changed|update)|new (e-?mail |mail )?address|adress(ä|ae)nderung|neue e-?mail-?adresse|changement d'adresse( e-?mail)?|nouvelle adresse)\b/i;
const CHANGE_TEXT = [
  /\b(my|our|his|her|the|this|their) (e-?mail |mail )?address (has |have )?(changed|moved)\b/i,
  /\b(changed|moved) (my|our|his|her|their) (e-?mail |mail )?address\b/i,
  /\b(my|our|his|her|their) new (e-?mail |mail )?address\b/i,
  /\b(has|have) a new (e-?mail |mail )?address\b/i,
  /\bmeine neue (e-?mail-?)?adresse\b|\bma nouvelle adresse\b/i,
];
/** "No longer in use" says the address changed only together with a request to update, or a new address. */
const NO_LONGER = /\b(address|mailbox|account|inbox)( \S+)? is no longer (in use|used|active|monitored|checked|read|being (used|monitored|checked|read))\b/i;
const UPDATE = /\b(update|change|correct) (your|the) (records|address book|contacts?|contact details|mailing list|distribution list)\b/i;

export interface AddressChangeNotice {
  /** The address the notice points to, when it names one. */
  newAddress: string | null;
}

/** An address-change notice, or null. `ignore` holds addresses that are not the new one (ours, theirs). */
export function addressChange(email: Email, ignore: string[]): AddressChangeNotice | null {
  const text = replyText(email);
  const skip = new Set(ignore.map((a) => a.toLowerCase()));
  const newAddress = addressesIn(text).find((a) => !skip.has(a.toLowerCase()) && !/^(mailer-daemon|postmaster|no-?reply)@/i.test(a)) ?? null;
  const flat = text.replace(/\s+/g, ' ');
  const said = CHANGE_SUBJECT.test(email.subject ?? '') || CHANGE_TEXT.some((re) => re.test(flat)) || (NO_LONGER.test(flat) && (UPDATE.test(flat) || newAddress !== null));
  return said ? { newAddress } : null;
}

// Reply and forward prefixes of common clients (RFC 5322 3.6.5 "Re:", and localized forms).
// `\s*(?:\[n\]\s*)?`, not `\s*(\[n\])?\s*`: two blank runs side by side split a long run every way (quadratic).
const PREFIX = /^\s*((re|fwd?|aw|wg|sv|vs|antw|tr|odp|rv|enc)\s*(?:\[\d+\]\s*)?:\s*)/i;
/** What may follow a command word: "me", "please", "from this list", the address to act on (list-server
 * syntax, "unsubscribe jane@example.com"), in any order, and closing punctuation. */
const COMMAND_TAIL = String.raw`(\s+(me|please|now|thanks|thank you)|\s*,\s*(please|thanks)|\s+(from|off|to) (this|the|your|all|my|our) (mailing )?(list|e-?mails?|mails?|newsletters?)|\s+<?[^\s@<>]+@[^\s@<>]+>?)*[\s.!]*`;
const UNSUBSCRIBE = new RegExp(
  String.raw`^(please\s+)?(unsubscribe|unsub|remove|stop|opt[- ]?out|take me off( (this|the|your|all) (mailing )?(list|e-?mails?|mails?))?|cancel( my)? subscription|abbestellen|abmelden|d[ée]sabonner|d[ée]sinscri(re|ption)|(darme de )?baja)${COMMAND_TAIL}$`,
  'i',
);
const SUBSCRIBE = new RegExp(String.raw`^(please\s+)?(subscribe|sign me up|add me|join|anmelden|abonnieren|s'abonner|alta)${COMMAND_TAIL}$`, 'i');

export type ListRequest = 'Unsubscribe' | 'Subscribe';

function command(line: string): ListRequest | null {
  const s = line.trim();
  if (!s || s.length > 200) return null;
  if (UNSUBSCRIBE.test(s)) return 'Unsubscribe';
  if (SUBSCRIBE.test(s)) return 'Subscribe';
  return null;
}

/**
 * A list command from a person, or null. The subject counts only when it is not a reply's ("Re: Stop" may
 * just repeat our own subject); otherwise the first line the author wrote decides. Auto-replies are never
 * requests: a vacation message can quote anything.
 */
export function listRequest(email: Email): { request: ListRequest; said: string } | null {
  if (isAutoReply(email)) return null;
  const subject = email.subject ?? '';
  if (!PREFIX.test(subject)) {
    const bySubject = command(subject);
    if (bySubject) return { request: bySubject, said: subject.trim() };
  }
  const line = firstLine(replyText(email));
  const byLine = command(line);
  return byLine ? { request: byLine, said: line } : null;
}
