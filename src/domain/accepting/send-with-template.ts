// POST /email/withTemplate and /email/batchWithTemplates: each message names a template (TemplateId or
// TemplateAlias) and a TemplateModel; the template (wrapped in its layout) is rendered into an ordinary
// message, which then goes through the same accept path as POST /email (src/domain/accepting/accept.ts): the same
// checks, one transaction, the same answers. A message whose template is missing, is a layout, or does not
// render is refused on its own with a clear error, before anything is stored: never a half-rendered mail.
import type { AppContext } from '../app-context.js';
import { ApiError, ErrorCode, ServiceBusy } from '../errors.js';
import { acceptMessages, type SendAuth, type SendOutcome } from './accept.js';
import type { IdempotencyInput } from './idempotency.js';
import { failure } from './commit-units.js';
import { loadTemplateForSending, renderStoredTemplate } from '../templates/render-message.js';
import { turnTaker } from '../templates/take-turns.js';

type Loaded = Awaited<ReturnType<typeof loadTemplateForSending>>;

const TEMPLATE_KEYS = new Set(['TemplateId', 'TemplateAlias', 'TemplateModel', 'InlineCss']);

async function renderOne(ctx: AppContext, serverId: number, input: unknown, cache: Map<string, Promise<Loaded>>): Promise<Record<string, unknown>> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ApiError(ErrorCode.InvalidEmailRequest, 'Each message must be a JSON object.');
  }
  const m = input as Record<string, unknown>;
  const id = m.TemplateId ?? null;
  const alias = m.TemplateAlias ?? null;
  if (id !== null && !(typeof id === 'number' && Number.isInteger(id) && id > 0)) {
    throw new ApiError(ErrorCode.InvalidRequestFields, "The field 'TemplateId' must be a positive whole number.");
  }
  if (alias !== null && typeof alias !== 'string') throw new ApiError(ErrorCode.InvalidRequestFields, "The field 'TemplateAlias' must be a string.");
  const model = m.TemplateModel ?? {};
  if (typeof model !== 'object' || Array.isArray(model)) throw new ApiError(ErrorCode.InvalidRequestFields, "The field 'TemplateModel' must be an object.");
  const inline = m.InlineCss ?? true;
  if (typeof inline !== 'boolean') throw new ApiError(ErrorCode.InvalidRequestFields, "The field 'InlineCss' must be true or false.");
  const key = id !== null ? `id:${id}` : `alias:${String(alias).toLowerCase()}`;
  let loading = cache.get(key);
  if (!loading) {
    loading = loadTemplateForSending(ctx.db, serverId, { TemplateId: id as number | null, TemplateAlias: alias as string | null });
    cache.set(key, loading);
  }
  const { template, layout } = await loading;
  const rendered = await renderStoredTemplate(ctx.threads, template, layout, model, { inlineCss: inline });
  const plain: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) if (!TEMPLATE_KEYS.has(k)) plain[k] = v;
  plain.Subject = rendered.subject;
  plain.HtmlBody = rendered.htmlBody;
  plain.TextBody = rendered.textBody;
  return plain;
}

/** Renders and accepts the messages; one outcome per input, in input order. */
export async function sendWithTemplates(ctx: AppContext, auth: SendAuth, inputs: unknown[], idempotency: IdempotencyInput | null): Promise<SendOutcome[]> {
  const cache = new Map<string, Promise<Loaded>>();
  const outcomes: Array<SendOutcome | null> = [];
  const plain: unknown[] = [];
  const takeTurn = turnTaker();
  for (const input of inputs) {
    await takeTurn();
    try {
      plain.push(await renderOne(ctx, auth.serverId, input, cache));
      outcomes.push(null);
    } catch (err) {
      // Busy (the CSS inlining threads, templates/inline-css.ts): the request is refused as a whole with 503
      // and Retry-After, as when the sending queue is full, before anything is stored.
      if (err instanceof ApiError && !(err instanceof ServiceBusy)) outcomes.push(failure(err));
      else throw err;
    }
  }
  if (plain.length === 0) return outcomes as SendOutcome[];
  const accepted = await acceptMessages(ctx, auth, plain, { idempotency });
  // Rendering is deterministic, so a replayed answer (Idempotency-Key) lines up with the same slots.
  let next = 0;
  return outcomes.map((o) => o ?? accepted[next++] ?? failure(new ApiError(ErrorCode.InvalidEmailRequest, 'The message was not accepted.')));
}
