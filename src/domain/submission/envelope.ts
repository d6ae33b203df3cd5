// The envelope decides who receives a submitted message (RFC 5321 3.3, RFC 6409 8.1): each RCPT TO address
// is a recipient; one the To or Cc header names keeps that kind (and the header's display name), any other is
// a Bcc (RFC 5322 3.6.3: a blind copy is an envelope recipient the headers do not show). A header address
// missing from the envelope receives nothing.
import { keptMessageId } from '../accepting/headers.js';
import { parseSingleMailbox, type Mailbox } from '../../infra/mime/address.js';
import { prepareMessage } from '../accepting/validate.js';
import type { PreparedMessage, PreparedRecipient } from '../accepting/types.js';
import { mailboxText, type ParsedSubmission } from './from-mime.js';

/** The suppression/recipient key, as validate.ts computes it: local part lowered, domain an A-label. */
const keyOf = (m: Mailbox): string => `${m.ascii.slice(0, m.ascii.length - m.domain.length).toLowerCase()}${m.domain}`;

function tryParse(address: string): Mailbox | null {
  try {
    return parseSingleMailbox(address);
  } catch {
    return null;
  }
}

const ORDER: Record<PreparedRecipient['kind'], number> = { To: 0, Cc: 1, Bcc: 2 };

/** Validates a submission by the API's rules (prepareMessage) with the envelope's recipients. */
export function prepareSubmission(parsed: ParsedSubmission, rcptTo: string[]): PreparedMessage {
  const envelope = new Map<string, Mailbox>();
  for (const r of rcptTo) {
    const m = tryParse(r);
    // The listener refused unparsable RCPT addresses; a duplicate RCPT is one recipient.
    if (m && !envelope.has(keyOf(m))) envelope.set(keyOf(m), m);
  }
  const named = new Map<string, { kind: 'To' | 'Cc'; name: string }>();
  for (const [kind, list] of [['To', parsed.to], ['Cc', parsed.cc]] as const) {
    for (const h of list) {
      const m = tryParse(h.address);
      if (m && envelope.has(keyOf(m)) && !named.has(keyOf(m))) named.set(keyOf(m), { kind, name: h.name });
    }
  }
  // Every recipient goes through the API's address rules and its 50-recipient limit as one list; the kinds
  // are set afterwards, so that a message with Bcc recipients only (no To header) is accepted too.
  const all = [...envelope].map(([k, m]) => mailboxText({ name: named.get(k)?.name ?? '', address: m.address }));
  const message = prepareMessage({ ...parsed.input, To: all.join(', ') }, { allowTemplateModel: false });
  message.recipients = message.recipients
    .map((r) => ({ ...r, kind: named.get(r.key)?.kind ?? ('Bcc' as const) }))
    .sort((a, b) => ORDER[a.kind] - ORDER[b.kind]);
  message.toRaw = parsed.to.map(mailboxText).join(', ');
  // compose.ts writes a Message-ID found in the stored headers instead of its own.
  if (parsed.keepMessageId) message.headers.push({ Name: 'Message-ID', Value: keptMessageId(parsed.keepMessageId, 'Message-ID') });
  return message;
}
