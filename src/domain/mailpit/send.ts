// POST /api/v1/send: Mailpit's send request, sent through this server by the same accepting path as
// POST /email (validation, sender signature, suppressions, storage in one durable commit), so what a test
// sends this way is what the application's own sends would be. Answers Mailpit's {ID}: the MessageID.
import type { AppContext } from '../app-context.js';
import { acceptMessages } from '../accepting/accept.js';
import { formatMailbox } from '../../infra/mime/mime-encode.js';
import type { MailpitServer } from './filters.js';
import { setTags } from './tags.js';

export class SendError extends Error {}

interface AddressIn {
  Email?: unknown;
  Name?: unknown;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function address(a: unknown, field: string): string {
  if (a === null || typeof a !== 'object') throw new SendError(`invalid ${field} address`);
  const { Email, Name } = a as AddressIn;
  if (typeof Email !== 'string' || Email.trim() === '') throw new SendError(`invalid ${field} address: ${str(Email)}`);
  return str(Name) ? formatMailbox(str(Name), Email.trim()) : Email.trim();
}

function list(v: unknown, field: string, each: (x: unknown) => string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw new SendError(`${field} must be an array`);
  return v.length ? v.map(each).join(', ') : undefined;
}

/** Mailpit's send request as the body of POST /email. */
export function toPostmark(body: unknown): { message: Record<string, unknown>; tags: unknown[] | null } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new SendError('the request body must be a JSON object');
  const b = body as Record<string, unknown>;
  const headers = b.Headers ?? {};
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) throw new SendError('Headers must be an object');
  const attachments = b.Attachments ?? [];
  if (!Array.isArray(attachments)) throw new SendError('Attachments must be an array');
  const tags = b.Tags === undefined || b.Tags === null ? null : Array.isArray(b.Tags) ? b.Tags : null;
  if (b.Tags !== undefined && b.Tags !== null && !Array.isArray(b.Tags)) throw new SendError('Tags must be an array');
  return {
    message: {
      From: address(b.From, 'From'),
      To: list(b.To, 'To', (a) => address(a, 'To')),
      Cc: list(b.Cc, 'Cc', (a) => address(a, 'Cc')),
      Bcc: list(b.Bcc, 'Bcc', (e) => {
        if (typeof e !== 'string' || e.trim() === '') throw new SendError(`invalid Bcc address: ${str(e)}`);
        return e.trim();
      }),
      ReplyTo: list(b.ReplyTo, 'ReplyTo', (a) => address(a, 'Reply-To')),
      Subject: str(b.Subject),
      TextBody: str(b.Text) || undefined,
      HtmlBody: str(b.HTML) || undefined,
      Tag: tags && typeof tags[0] === 'string' ? tags[0] : undefined,
      Headers: Object.entries(headers as Record<string, unknown>).map(([Name, Value]) => ({ Name, Value: str(Value) })),
      Attachments: attachments.map((a: unknown) => {
        const x = (a ?? {}) as Record<string, unknown>;
        // Mailpit takes a data: URL as well as bare base64: the text after the last comma.
        const content = str(x.Content);
        return { Name: x.Filename, Content: content.slice(content.lastIndexOf(',') + 1), ContentType: x.ContentType || undefined, ContentID: x.ContentID || undefined };
      }),
    },
    tags,
  };
}

export async function sendMessage(ctx: AppContext, server: MailpitServer, body: unknown): Promise<{ ID: string }> {
  const { message, tags } = toPostmark(body);
  // Any From into a Sandbox server, as Mailpit's send takes it (accepting/checks.ts; a Live server's send
  // under MAILROOM_CAPTURE_DIR keeps the sender-signature rule).
  const [outcome] = await acceptMessages(ctx, { accountId: server.accountId, serverId: server.id, testMode: false, anyFrom: true }, [message], { source: 'mailpit' });
  const r = outcome!.result;
  if (r.ErrorCode !== 0 || !('MessageID' in r)) throw new SendError(r.Message);
  // More than one tag: the first is the Postmark Tag, all of them the message's Mailpit tags.
  if (tags && tags.length > 1) await setTags(ctx, server, [r.MessageID], tags);
  return { ID: r.MessageID };
}
