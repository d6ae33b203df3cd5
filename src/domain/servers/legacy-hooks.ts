// The server's legacy hook settings (BounceHookUrl, OpenHookUrl, DeliveryHookUrl, ClickHookUrl,
// SpamComplaintHookUrl, PostFirstOpenOnly, IncludeBounceContentInHook) are a view of the webhooks of the
// server's default transactional stream, as on the hosted service since webhooks moved to streams: setting
// one drives the matching trigger of a webhook there (created, moved or switched off), and a webhook made
// through /webhooks shows in these fields. Nothing is stored in the server row that no code reads.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { fromFlag } from '../../infra/db/util.js';
import { ApiError, ErrorCode } from '../errors.js';
import { lockServer } from '../streams/lock-server.js';
import { checkTargetUrl } from '../../infra/net/address-guard.js';
import { newSigningSecret } from '../webhooks/signature.js';
import { defaultTriggers, parseTriggers, type TriggerKey, type Triggers } from '../webhooks/triggers.js';

export const LEGACY_HOOKS = {
  BounceHookUrl: 'Bounce',
  OpenHookUrl: 'Open',
  DeliveryHookUrl: 'Delivery',
  ClickHookUrl: 'Click',
  SpamComplaintHookUrl: 'SpamComplaint',
} as const satisfies Record<string, TriggerKey>;

export type LegacyHookField = keyof typeof LEGACY_HOOKS;
export type LegacyHooksInput = Partial<Record<LegacyHookField, string>> & {
  InboundHookUrl?: string;
  PostFirstOpenOnly?: boolean;
  IncludeBounceContentInHook?: boolean;
};
export type LegacyHooksView = Record<LegacyHookField, string>;

const FIELDS = Object.keys(LEGACY_HOOKS) as LegacyHookField[];

/** Validates the hook fields of a server edit before anything is written (606 with the guard's reason). */
export function checkLegacyHooks(ctx: AppContext, input: LegacyHooksInput): void {
  // InboundHookUrl is not a webhook of a stream: inbound processing posts to it (domain/inbound), through
  // the same address guard as every webhook.
  for (const f of [...FIELDS, 'InboundHookUrl' as const]) {
    const url = input[f]?.trim();
    if (!url) continue;
    if (url.length > 2048) throw new ApiError(ErrorCode.ServerInvalidWebhookUrl, `${f} must be at most 2048 characters.`);
    const reason = checkTargetUrl(url, ctx.config.webhookAllowPrivate, { credentialsInUrl: f === 'InboundHookUrl' });
    if (reason) throw new ApiError(ErrorCode.ServerInvalidWebhookUrl, `${f}: ${reason}`);
  }
}

async function defaultStreamId(db: Kysely<Database>, serverId: number): Promise<string | null> {
  const row = await db
    .selectFrom('message_streams')
    .select('id')
    .where('server_id', '=', serverId)
    .where('type', '=', 'Transactional')
    .where('is_default', '=', 1)
    .executeTakeFirst();
  return row?.id ?? null;
}

type Hook = { id: number; url: string; triggers: Triggers };

async function streamHooks(db: Kysely<Database>, serverId: number, streamId: string): Promise<Hook[]> {
  const rows = await db.selectFrom('webhooks').select(['id', 'url', 'triggers']).where('server_id', '=', serverId).where('stream_id', '=', streamId).orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, url: r.url, triggers: parseTriggers(r.triggers) }));
}

/** The hook fields as GET /server shows them: the first webhook of the default stream with each trigger on. */
export async function readLegacyHooks(db: Kysely<Database>, serverId: number): Promise<LegacyHooksView> {
  const view = Object.fromEntries(FIELDS.map((f) => [f, ''])) as LegacyHooksView;
  const stream = await defaultStreamId(db, serverId);
  if (!stream) return view;
  const hooks = await streamHooks(db, serverId, stream);
  for (const f of FIELDS) view[f] = hooks.find((h) => h.triggers[LEGACY_HOOKS[f]].Enabled)?.url ?? '';
  return view;
}

const enabledCount = (t: Triggers) => Object.values(t).filter((x) => x.Enabled).length;

/**
 * Applies the hook fields of a server edit inside the caller's transaction (checkLegacyHooks ran first).
 * For a field set to a URL: the trigger is switched on at the stream's webhook with that URL; else the
 * webhook now carrying only that trigger moves to the new URL; else a new webhook is made. The trigger is
 * switched off everywhere else; a webhook left with no trigger on is deleted (it would never be called).
 * An empty string switches the trigger off.
 */
export async function applyLegacyHooks(trx: Kysely<Database>, ctx: AppContext, serverId: number, input: LegacyHooksInput, server: { postFirstOpenOnly: boolean; includeBounceContent: boolean }): Promise<void> {
  const given = FIELDS.filter((f) => input[f] !== undefined);
  const optionsGiven = input.PostFirstOpenOnly !== undefined || input.IncludeBounceContentInHook !== undefined;
  if (given.length === 0 && !optionsGiven) return;
  const stream = await defaultStreamId(trx, serverId);
  if (!stream) return;
  await lockServer(trx, ctx.database.sql, serverId);
  const hooks = await streamHooks(trx, serverId, stream);
  const changed = new Set<Hook>();
  const now = ctx.clock.now();

  for (const f of given) {
    const key = LEGACY_HOOKS[f];
    const url = input[f]!.trim();
    const carrying = hooks.filter((h) => h.triggers[key].Enabled);
    let target: Hook | undefined;
    if (url) {
      target = hooks.find((h) => h.url === url) ?? carrying.find((h) => enabledCount(h.triggers) === 1);
      if (target) {
        if (target.url !== url) target.url = url;
      } else {
        const triggers = defaultTriggers();
        const secret = ctx.secrets.seal(newSigningSecret());
        const row = await trx
          .insertInto('webhooks')
          .values({ server_id: serverId, stream_id: stream, url, triggers: JSON.stringify(triggers), signing_secret: secret, created_at: now, updated_at: null })
          .returning('id')
          .executeTakeFirstOrThrow();
        target = { id: row.id, url, triggers };
        hooks.push(target);
      }
      target.triggers[key].Enabled = true;
      changed.add(target);
    }
    for (const h of carrying) {
      if (h === target) continue;
      h.triggers[key].Enabled = false;
      changed.add(h);
    }
  }
  // The server-wide options follow onto the webhooks that carry the trigger they qualify.
  for (const h of hooks) {
    if (h.triggers.Open.Enabled && h.triggers.Open.PostFirstOpenOnly !== server.postFirstOpenOnly) {
      h.triggers.Open.PostFirstOpenOnly = server.postFirstOpenOnly;
      changed.add(h);
    }
    if (h.triggers.Bounce.Enabled && h.triggers.Bounce.IncludeContent !== server.includeBounceContent) {
      h.triggers.Bounce.IncludeContent = server.includeBounceContent;
      changed.add(h);
    }
  }
  for (const h of changed) {
    if (enabledCount(h.triggers) === 0) await trx.deleteFrom('webhooks').where('id', '=', h.id).execute();
    else await trx.updateTable('webhooks').set({ url: h.url, triggers: JSON.stringify(h.triggers), updated_at: now }).where('id', '=', h.id).execute();
  }
}

/** The server-row flags a server edit leaves in place, for applyLegacyHooks. */
export function serverHookOptions(row: { post_first_open_only: number; include_bounce_content_in_hook: number }) {
  return { postFirstOpenOnly: fromFlag(row.post_first_open_only), includeBounceContent: fromFlag(row.include_bounce_content_in_hook) };
}
