// The list fields of broadcast mail, added by delivery before signing (dkim/sign.ts signs both):
// - List-Id (RFC 2919): the stream as a list, `<stream.server.from-domain>`, under the From domain, which is
//   the sender's namespace; mailbox providers group and filter list mail by it.
// - Feedback-ID: Gmail's feedback loop for bulk senders reports complaint rates per value of this field,
//   `a:b:c:SenderId`; here stream, server and account, with the service's return-path domain as the
//   SenderId, constant for the whole installation as Gmail asks. No part is unique per message or recipient.
// A message whose own Headers already carry either field keeps the sender's.
import { emailDomain } from '../../infra/mime/normalize.js';

export interface ListHeadersInput {
  streamId: string;
  serverId: number;
  accountId: number;
  fromEmail: string;
  /** The message's custom Headers. */
  headers: ReadonlyArray<{ Name: string }>;
  /** The service's return-path domain (config.returnPathDomain). */
  serviceDomain: string;
}

export function listHeaders(input: ListHeadersInput): Array<{ key: string; value: string }> {
  const own = new Set(input.headers.map((h) => h.Name.trim().toLowerCase()));
  const out: Array<{ key: string; value: string }> = [];
  if (!own.has('list-id')) out.push({ key: 'List-Id', value: `<${input.streamId}.${input.serverId}.${emailDomain(input.fromEmail)}>` });
  if (!own.has('feedback-id')) out.push({ key: 'Feedback-ID', value: `${input.streamId}:${input.serverId}:${input.accountId}:${input.serviceDomain}` });
  return out;
}
