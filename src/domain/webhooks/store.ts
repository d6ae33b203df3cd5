// Create, change, find and delete webhooks of one server. Every query is filtered by the caller's server:
// another server's webhook is "not found", never visible.
import type { AppContext } from '../app-context.js';
import { ApiError, ErrorCode } from '../errors.js';
import { checkTargetUrl } from '../../infra/net/address-guard.js';
import { newSigningSecret } from './signature.js';
import { defaultTriggers, mergeTriggers, parseTriggers, type TriggersInput } from './triggers.js';
import { PASSWORD_MASK, type WebhookRow } from './view.js';

/** No code is published for a missing webhook; the generic "resource not found" (12) is used, as HTTP 422. */
export const WEBHOOK_NOT_FOUND = ErrorCode.NotFound;
/** In the hosted service's words, which its clients' suites compare. */
export const webhookNotFound = () => new ApiError(WEBHOOK_NOT_FOUND, "The webhook for the provided 'ID' was not found.");

export interface HttpAuthInput {
  Username?: string | null;
  Password?: string | null;
}
export interface HeaderInput {
  Name: string;
  Value: string;
}
export interface WebhookInput {
  Url?: string | null;
  MessageStream?: string | null;
  Triggers?: TriggersInput | null;
  HttpAuth?: HttpAuthInput | null;
  HttpHeaders?: HeaderInput[] | null;
}

export const MAX_HEADERS = 20;
// RFC 9110 5.1: a field name is a token.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Set by the delivery itself: a configured value would be overwritten or would break the request.
const RESERVED = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'authorization', 'te', 'upgrade', 'trailer', 'expect', 'keep-alive']);

function invalid(message: string): never {
  throw new ApiError(ErrorCode.InvalidRequestFields, message);
}

function checkUrl(ctx: AppContext, url: string | null | undefined): string {
  const u = (url ?? '').trim();
  if (!u) throw new ApiError(ErrorCode.ServerInvalidWebhookUrl, 'Url is required.');
  if (u.length > 2048) throw new ApiError(ErrorCode.ServerInvalidWebhookUrl, 'Url must be at most 2048 characters.');
  const reason = checkTargetUrl(u, ctx.config.webhookAllowPrivate);
  if (reason) throw new ApiError(ErrorCode.ServerInvalidWebhookUrl, reason);
  return u;
}

function checkHeaders(headers: HeaderInput[]): string {
  if (headers.length > MAX_HEADERS) invalid(`At most ${MAX_HEADERS} HttpHeaders are allowed.`);
  const seen = new Set<string>();
  for (const h of headers) {
    if (!TOKEN.test(h.Name) || h.Name.length > 256) invalid(`HttpHeaders: '${h.Name.slice(0, 100)}' is not a valid header name.`);
    const lower = h.Name.toLowerCase();
    if (RESERVED.has(lower) || lower.startsWith('x-mailroom-')) invalid(`HttpHeaders: '${h.Name}' is set by mailroom itself and cannot be configured.`);
    if (seen.has(lower)) invalid(`HttpHeaders: '${h.Name}' is given twice.`);
    seen.add(lower);
    // RFC 9110 5.5: a field value is visible ASCII, SP, HTAB and obs-text; CR, LF and NUL never (header
    // injection).
    if (/[^\t\x20-\x7e\x80-\xff]/.test(h.Value) || h.Value.length > 4096) invalid(`HttpHeaders: the value of '${h.Name}' is invalid.`);
  }
  return JSON.stringify(headers.map((h) => ({ Name: h.Name, Value: h.Value })));
}

function applyAuth(ctx: AppContext, current: { user: string; password: string }, auth: HttpAuthInput): { user: string; password: string } {
  const user = auth.Username ?? current.user;
  // RFC 7617 2: the user-id cannot contain a colon.
  if (user.includes(':')) invalid('HttpAuth.Username cannot contain a colon.');
  if (/[\r\n\0]/.test(user) || user.length > 256) invalid('HttpAuth.Username is invalid.');
  let password = current.password;
  if (auth.Password !== undefined && auth.Password !== null && auth.Password !== PASSWORD_MASK) {
    if (/[\r\n\0]/.test(auth.Password) || auth.Password.length > 256) invalid('HttpAuth.Password is invalid.');
    password = auth.Password === '' ? '' : ctx.secrets.seal(auth.Password);
  }
  return { user, password };
}

async function streamExists(ctx: AppContext, serverId: number, streamId: string): Promise<{ archived: boolean } | null> {
  const row = await ctx.db.selectFrom('message_streams').select('archived_at').where('server_id', '=', serverId).where('id', '=', streamId).executeTakeFirst();
  return row ? { archived: row.archived_at !== null } : null;
}

/**
 * The `messagestream` filter of GET /webhooks: an unknown stream is an error (docs/reference/error-codes.md,
 * "The error body and HTTP statuses" 7).
 */
export async function listWebhooks(ctx: AppContext, serverId: number, streamId?: string): Promise<WebhookRow[]> {
  let q = ctx.db.selectFrom('webhooks').selectAll().where('server_id', '=', serverId);
  if (streamId !== undefined) {
    if (!(await streamExists(ctx, serverId, streamId))) throw new ApiError(ErrorCode.StreamNotFound, `The message stream '${streamId}' was not found.`);
    q = q.where('stream_id', '=', streamId);
  }
  return q.orderBy('id').execute();
}

export async function getWebhook(ctx: AppContext, serverId: number, id: number): Promise<WebhookRow> {
  const row = await ctx.db.selectFrom('webhooks').selectAll().where('server_id', '=', serverId).where('id', '=', id).executeTakeFirst();
  if (!row) throw webhookNotFound();
  return row;
}

async function defaultStream(ctx: AppContext, serverId: number): Promise<string> {
  const row = await ctx.db
    .selectFrom('message_streams')
    .select('id')
    .where('server_id', '=', serverId)
    .where('type', '=', 'Transactional')
    .where('is_default', '=', 1)
    .executeTakeFirst();
  return row?.id ?? 'outbound';
}

/** Creates a webhook; the signing secret is returned in plain text this once. */
export async function createWebhook(ctx: AppContext, serverId: number, input: WebhookInput): Promise<{ row: WebhookRow; secret: string }> {
  const url = checkUrl(ctx, input.Url);
  const streamId = input.MessageStream ?? (await defaultStream(ctx, serverId));
  const stream = await streamExists(ctx, serverId, streamId);
  if (!stream) throw new ApiError(ErrorCode.StreamNotFound, `The message stream '${streamId}' was not found.`);
  if (stream.archived) throw new ApiError(ErrorCode.StreamNotFound, `The message stream '${streamId}' is archived.`);
  const auth = input.HttpAuth ? applyAuth(ctx, { user: '', password: '' }, input.HttpAuth) : { user: '', password: '' };
  const headers = checkHeaders(input.HttpHeaders ?? []);
  const secret = newSigningSecret();
  const row = await ctx.db
    .insertInto('webhooks')
    .values({
      server_id: serverId,
      stream_id: streamId,
      url,
      triggers: JSON.stringify(mergeTriggers(defaultTriggers(), input.Triggers)),
      http_auth_user: auth.user,
      http_auth_password: auth.password,
      headers,
      signing_secret: ctx.secrets.seal(secret),
      created_at: ctx.clock.now(),
      updated_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, secret };
}

/** Only what is passed changes; Triggers merge key by key (docs/reference/webhooks.md, "Endpoints"). */
export async function updateWebhook(ctx: AppContext, serverId: number, id: number, input: WebhookInput): Promise<WebhookRow> {
  const cur = await getWebhook(ctx, serverId, id);
  const patch: Partial<Pick<WebhookRow, 'url' | 'triggers' | 'http_auth_user' | 'http_auth_password' | 'headers'>> = {};
  if (input.Url !== undefined && input.Url !== null) patch.url = checkUrl(ctx, input.Url);
  if (input.Triggers) patch.triggers = JSON.stringify(mergeTriggers(parseTriggers(cur.triggers), input.Triggers));
  if (input.HttpAuth) {
    const auth = applyAuth(ctx, { user: cur.http_auth_user, password: cur.http_auth_password }, input.HttpAuth);
    patch.http_auth_user = auth.user;
    patch.http_auth_password = auth.password;
  }
  if (input.HttpHeaders) patch.headers = checkHeaders(input.HttpHeaders);
  if (Object.keys(patch).length === 0) return cur;
  return ctx.db
    .updateTable('webhooks')
    .set({ ...patch, updated_at: ctx.clock.now() })
    .where('server_id', '=', serverId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deleting drops the webhook's pending notifications too (their jobs find nothing and finish). */
export async function deleteWebhook(ctx: AppContext, serverId: number, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const gone = await trx.deleteFrom('webhooks').where('server_id', '=', serverId).where('id', '=', id).executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) throw webhookNotFound();
  });
}

/** How long the replaced secret keeps signing (as a second signature) after a rotation. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export async function rotateSecret(ctx: AppContext, serverId: number, id: number): Promise<string> {
  const cur = await getWebhook(ctx, serverId, id);
  const secret = newSigningSecret();
  const now = ctx.clock.now();
  await ctx.db
    .updateTable('webhooks')
    .set({ signing_secret: ctx.secrets.seal(secret), previous_signing_secret: cur.signing_secret, previous_secret_until: now + ROTATION_GRACE_MS, updated_at: now })
    .where('server_id', '=', serverId)
    .where('id', '=', id)
    .execute();
  return secret;
}
