// The checks of a message that need the database (docs/reference/sending.md and docs/reference/error-codes.md):
// the From address needs a confirmed sender signature or a DKIM-verified domain of the account (400/401), the
// stream must exist on the server and accept sending (1235/1236), and no recipient may be inactive in that
// stream (406). Everything is loaded with a few set queries for a whole group of messages, inside the
// transaction that stores them, so a suppression committed a moment earlier is seen.
import type { Kysely } from 'kysely';
import { withIndexPlans } from '../../infra/db/planner.js';
import { placeholders } from '../../infra/db/raw-query.js';
import type { Database } from '../../infra/db/schema.js';
import type { SqlDialect } from '../../infra/db/sql-dialect.js';
import { ApiError, ErrorCode } from '../errors.js';
import type { PreparedMessage, TrackLinks } from './types.js';

export interface Sender {
  accountId: number;
  serverId: number;
  /** The path takes any From into a Sandbox server (the development SMTP listener, Mailpit's send API). */
  anyFrom?: boolean;
}

export interface ServerSettings {
  sandbox: boolean;
  /** The server's SandboxAcceptsAnyFrom (only a Sandbox server's counts). */
  anyFrom: boolean;
  trackOpens: boolean;
  trackLinks: TrackLinks;
}

export interface CheckData {
  servers: Map<number, ServerSettings>;
  streams: Map<string, { type: string; archived: boolean }>;
  signatures: Map<string, boolean>;
  verifiedDomains: Set<string>;
  suppressed: Set<string>;
}

const CHUNK = 500;
const uniq = <T>(xs: T[]) => [...new Set(xs)];
const chunks = <T>(xs: T[]) => Array.from({ length: Math.ceil(xs.length / CHUNK) }, (_, i) => xs.slice(i * CHUNK, (i + 1) * CHUNK));

export async function loadCheckData(db: Kysely<Database>, sqlDialect: SqlDialect, list: Array<{ sender: Sender; message: PreparedMessage }>): Promise<CheckData> {
  const serverIds = uniq(list.map((x) => x.sender.serverId));
  const accountIds = uniq(list.map((x) => x.sender.accountId));
  const streamIds = uniq(list.map((x) => x.message.streamId));
  const data: CheckData = { servers: new Map(), streams: new Map(), signatures: new Map(), verifiedDomains: new Set(), suppressed: new Set() };
  const inServers = `in (${placeholders(serverIds.length)})`;
  const inAccounts = `in (${placeholders(accountIds.length)})`;
  const inStreams = `in (${placeholders(streamIds.length)})`;

  // Raw SQL (db/raw-query.ts): these run once per group commit, and the builder's compilation cost more than
  // the lookups themselves.
  const servers = await sqlDialect.selectRaw<{ id: number; delivery_type: string; track_opens: number; track_links: string | null; sandbox_any_from: number }>(
    db, `select "id", "delivery_type", "track_opens", "track_links", "sandbox_any_from" from "servers" where "id" ${inServers}`, serverIds,
  );
  for (const s of servers) {
    data.servers.set(s.id, { sandbox: s.delivery_type === 'Sandbox', anyFrom: s.sandbox_any_from === 1, trackOpens: s.track_opens === 1, trackLinks: (s.track_links || 'None') as TrackLinks });
  }
  const streams = await sqlDialect.selectRaw<{ server_id: number; id: string; type: string; archived_at: number | null }>(
    db, `select "server_id", "id", "type", "archived_at" from "message_streams" where "server_id" ${inServers} and "id" ${inStreams}`, [...serverIds, ...streamIds],
  );
  for (const s of streams) data.streams.set(`${s.server_id}|${s.id}`, { type: s.type, archived: s.archived_at !== null });

  for (const emails of chunks(uniq(list.map((x) => x.message.fromEmail)))) {
    const rows = await sqlDialect.selectRaw<{ account_id: number; email: string; confirmed: number }>(
      db, `select "account_id", "email", "confirmed" from "sender_signatures" where "account_id" ${inAccounts} and "email" in (${placeholders(emails.length)})`, [...accountIds, ...emails],
    );
    for (const r of rows) data.signatures.set(`${r.account_id}|${r.email}`, r.confirmed === 1);
  }
  for (const names of chunks(uniq(list.map((x) => x.message.fromDomain)))) {
    const rows = await sqlDialect.selectRaw<{ account_id: number; name: string }>(
      db, `select "account_id", "name" from "domains" where "account_id" ${inAccounts} and "name" in (${placeholders(names.length)}) and "dkim_verified" = 1`, [...accountIds, ...names],
    );
    for (const r of rows) data.verifiedDomains.add(`${r.account_id}|${r.name}`);
  }
  // By address alone, through suppressions_email, and with index plans (planner.ts): with server and stream
  // in the WHERE, PostgreSQL without statistics reads the stream's whole list through suppressions_stream_time.
  // An address suppressed in other servers' streams comes back too and is left out here.
  const wanted = new Set(serverIds);
  await withIndexPlans(db, async (q) => {
    for (const keys of chunks(uniq(list.flatMap((x) => x.message.recipients.map((r) => r.key))))) {
      const rows = await sqlDialect.selectRaw<{ server_id: number; stream_id: string; email: string }>(
        q, `select "server_id", "stream_id", "email" from "suppressions" where "email" in (${placeholders(keys.length)})`, keys,
      );
      for (const r of rows) if (wanted.has(Number(r.server_id))) data.suppressed.add(`${r.server_id}|${r.stream_id}|${r.email}`);
    }
  });
  return data;
}

/** The refusal for one message, or null when it may be sent. */
export function checkMessage(data: CheckData, sender: Sender, m: PreparedMessage): ApiError | null {
  // The server was deleted while its token was still cached by the auth layer.
  const server = data.servers.get(sender.serverId);
  if (!server) return new ApiError(ErrorCode.ServerNotFound, 'Server not found.');
  // A Sandbox server sends nothing, so a From it may take unsigned (a test inbox) protects no one's name.
  const anyFrom = server.sandbox && (server.anyFrom || sender.anyFrom === true);
  const confirmed = data.signatures.get(`${sender.accountId}|${m.fromEmail}`);
  if (!anyFrom && confirmed !== true && !data.verifiedDomains.has(`${sender.accountId}|${m.fromDomain}`)) {
    if (confirmed === false) {
      return new ApiError(
        ErrorCode.SenderSignatureNotConfirmed,
        `The 'From' address you supplied (${m.fromEmail}) has not been confirmed yet. Follow the link in the confirmation email, or verify the DKIM record of its domain.`,
      );
    }
    return new ApiError(
      ErrorCode.SenderSignatureNotFound,
      `The 'From' address you supplied (${m.fromEmail}) is not a Sender Signature on your account. Please add and confirm this address in order to be able to use it in the 'From' field of your messages.`,
    );
  }
  const stream = data.streams.get(`${sender.serverId}|${m.streamId}`);
  if (!stream) return new ApiError(ErrorCode.StreamNotOnServer, `The stream provided: '${m.streamId}' does not exist on this server.`);
  if (stream.archived || stream.type === 'Inbound') {
    return new ApiError(
      ErrorCode.StreamSendingNotSupported,
      `The message stream '${m.streamId}' does not support sending${stream.archived ? ' (it is archived)' : ' (it is an inbound stream)'}.`,
    );
  }
  const inactive = uniq(m.recipients.filter((r) => data.suppressed.has(`${sender.serverId}|${m.streamId}|${r.key}`)).map((r) => r.given));
  if (inactive.length > 0) {
    // docs/reference/error-codes.md, "The inactive-recipient message": the form the SDKs parse.
    return new ApiError(
      ErrorCode.InactiveRecipient,
      `You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: ${inactive.join(', ')}. Inactive recipients are ones that have generated a hard bounce, a spam complaint, or a manual suppression.`,
    );
  }
  return null;
}
