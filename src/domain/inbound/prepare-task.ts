// The CPU work of one received message, run on a parser thread (infra/threads): the forged verdict
// headers go (own-headers.ts), the MIME is parsed (parse.ts), SPF/DKIM/DMARC are checked (authenticate.ts,
// DNS answered by the main thread) and, per server, the webhook payload is built and serialized. The main
// thread keeps only what needs the database (the server's rules, the write) and gets strings back, not a
// parsed tree of 10,000 attachments to copy. The message comes as its bytes (moved, not copied) or, when it
// was spooled to disk, as the spool file's path, read here.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { CallMain } from '../../infra/threads/protocol.js';
import { examine, headerFields, type Envelope } from './authenticate.js';
import { withoutForgedHeaders } from './own-headers.js';
import { parseInbound } from './parse.js';
import { buildPayload, mailboxes } from './payload.js';

export interface ServerTarget {
  serverId: number;
  /** The new message's InboundMessageID. */
  id: string;
  rawEmail: boolean;
  /** The server's envelope recipients, first one first (OriginalRecipient, MailboxHash). */
  own: Array<{ address: string; mailboxHash: string }>;
  streamId: string;
}

export interface PrepareInput {
  raw: Uint8Array | null;
  path: string | null;
  envelope: Envelope;
  /** MAILROOM_INBOUND_DOMAIN */
  mta: string;
  spamd: { host: string; port: number } | null;
  servers: ServerTarget[];
}

export interface PreparedForServer {
  serverId: number;
  /** The payload's JSON, as stored. */
  payload: string;
  fromEmail: string;
  fromName: string;
  subject: string;
  tag: string;
  recipients: string;
}

export interface PreparedInbound {
  digest: string;
  /** The From address (or the envelope's), for the servers' inbound rules. */
  from: string;
  spamScore: number | null;
  warning: string | null;
  servers: PreparedForServer[];
}

export async function prepareInbound(input: PrepareInput, call: CallMain): Promise<PreparedInbound> {
  const raw = input.path ? await readFile(input.path) : Buffer.from(input.raw!.buffer, input.raw!.byteOffset, input.raw!.byteLength);
  const cleaned = withoutForgedHeaders(raw, { authservId: input.mta, spamScored: input.spamd !== null });
  // Parsed before any DNS or spamd work: a message that cannot be read is refused at once (554, listener).
  const email = await parseInbound(cleaned);
  const examined = await examine({ mta: input.mta, spamd: input.spamd }, (name, rrtype) => call('resolve', name, rrtype), raw, input.envelope);
  email.headers = [...headerFields(examined.headers), ...email.headers];
  let rawText: string | null = null;
  const from = mailboxes(email.from ? [email.from] : [])[0]?.address ?? input.envelope.mailFrom;
  const listed = [...mailboxes(email.to), ...mailboxes(email.cc)].map((m) => m.address.toLowerCase());
  const servers = input.servers.map((t): PreparedForServer => {
    const first = t.own[0];
    const payload = buildPayload({
      id: t.id,
      email,
      rawEmail: t.rawEmail ? (rawText ??= examined.headers + cleaned.toString('utf8')) : null,
      originalRecipient: first.address,
      mailboxHash: first.mailboxHash,
      envelopeBcc: t.own.map((b) => b.address).filter((a) => !listed.includes(a.toLowerCase())),
      streamId: t.streamId,
    });
    return {
      serverId: t.serverId,
      payload: JSON.stringify(payload),
      fromEmail: payload.From.toLowerCase(),
      fromName: payload.FromName,
      subject: payload.Subject,
      tag: payload.Tag,
      recipients: [...new Set([...listed, ...t.own.map((b) => b.address.toLowerCase())])].join(' '),
    };
  });
  return {
    digest: createHash('sha256').update(raw).digest('hex'),
    from,
    spamScore: examined.spam?.score ?? null,
    warning: examined.warning,
    servers,
  };
}
