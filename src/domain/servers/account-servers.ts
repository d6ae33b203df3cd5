// The account's servers (docs/reference/servers.md): list, create, read, edit, delete. Every query is scoped
// to the caller's account: another account's server is "not found" (601), never "forbidden".
import type { Kysely, Selectable } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import type { ServersTable } from '../../infra/db/tables/servers.js';
import { isUniqueViolation } from '../../infra/db/util.js';
import { ApiError, ErrorCode } from '../errors.js';
import { deleteMessageRows } from '../message-store/purge.js';
import { deleteMessagesBefore } from '../retention/purge.js';
import { revokeServerTokens } from '../tokens/tokens.js';
import { createServer, type NewServer } from './create-server.js';
import { applyLegacyHooks, checkLegacyHooks, serverHookOptions } from './legacy-hooks.js';
import { inboundHookColumns } from './inbound-hook-secret.js';
import { serverSettingsPatch, type ServerSettingsInput } from './server-settings.js';
import { ipPoolSetting } from '../streams/ip-pool-setting.js';

export type ServerRow = Selectable<ServersTable>;

export const DELIVERY_TYPES = ['Live', 'Sandbox'] as const;

export interface NewServerInput extends ServerSettingsInput {
  DeliveryType?: string;
}

const nameTaken = (name: string) => new ApiError(ErrorCode.ServerNameExists, `A server named '${name}' already exists.`);

/** The IpPool extension, checked against MAILROOM_IP_POOLS (which serverSettingsPatch does not see). */
function withIpPool<P extends { ip_pool?: string | null }>(ctx: AppContext, patch: P, input: ServerSettingsInput): P {
  const pool = ipPoolSetting(ctx.config, input.IpPool);
  return pool === undefined ? patch : { ...patch, ip_pool: pool };
}

/** InboundHookUrl's password sealed apart (inbound-hook-secret.ts); `stored`: the sealed one kept by the mask. */
function withHookPassword<P extends { inbound_hook_url?: string }>(ctx: AppContext, patch: P, stored: string): P {
  return patch.inbound_hook_url === undefined ? patch : { ...patch, ...inboundHookColumns(ctx.secrets, patch.inbound_hook_url, stored) };
}

export async function getAccountServer(db: Kysely<Database>, accountId: number, id: number): Promise<ServerRow> {
  const row = await db.selectFrom('servers').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  if (!row) throw new ApiError(ErrorCode.ServerNotFound, `Server ${id} was not found.`);
  return row;
}

/** Hints (last four characters) of each server's stored tokens: the values themselves are never stored. */
export async function tokenHints(db: Kysely<Database>, serverIds: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(serverIds.map((id) => [id, []]));
  if (serverIds.length === 0) return out;
  const rows = await db.selectFrom('api_tokens').select(['server_id', 'hint']).where('server_id', 'in', serverIds).orderBy('id').execute();
  for (const r of rows) out.get(r.server_id!)?.push(r.hint);
  return out;
}

export async function listServers(ctx: AppContext, accountId: number, q: { count: number; offset: number; name?: string }) {
  let base = ctx.db.selectFrom('servers').where('account_id', '=', accountId);
  if (q.name) base = base.where((eb) => ctx.database.sql.contains(eb.ref('name'), q.name!));
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await base.selectAll().orderBy('id').limit(q.count).offset(q.offset).execute();
  return { total: Number(total.n), rows };
}

async function checkNameFree(trx: Kysely<Database>, accountId: number, name: string, exceptId?: number) {
  let q = trx.selectFrom('servers').select('id').where('account_id', '=', accountId).where('name', '=', name);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  if (await q.executeTakeFirst()) throw nameTaken(name);
}

/** Creates a server with its three default streams and first token; the token value is returned once. */
export async function createAccountServer(ctx: AppContext, accountId: number, input: NewServerInput): Promise<{ row: ServerRow; token: string }> {
  if (input.Name === undefined || !input.Name.trim()) throw new ApiError(ErrorCode.ServerNameMissing, 'Server name is required.');
  const patch = withHookPassword(ctx, withIpPool(ctx, serverSettingsPatch(input), input), '');
  checkLegacyHooks(ctx, input);
  let deliveryType: 'Live' | 'Sandbox' = 'Live';
  if (input.DeliveryType !== undefined) {
    const t = DELIVERY_TYPES.find((x) => x.toLowerCase() === input.DeliveryType!.toLowerCase());
    if (!t) throw new ApiError(ErrorCode.InvalidRequestFields, 'DeliveryType must be Live or Sandbox.');
    deliveryType = t;
  }
  const { name, color, ...settings } = patch;
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      await checkNameFree(trx, accountId, name!);
      const created = await createServer(trx, { accountId, name: name!, color, deliveryType, settings: settings as NewServer['settings'] }, ctx.clock.now());
      const row = await getAccountServer(trx, accountId, created.serverId);
      await applyLegacyHooks(trx, ctx, row.id, input, serverHookOptions(row));
      return { row, token: created.token };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(name!);
    throw err;
  }
}

export async function updateAccountServer(ctx: AppContext, accountId: number, id: number, input: NewServerInput): Promise<ServerRow> {
  const row = await getAccountServer(ctx.db, accountId, id);
  if (input.DeliveryType !== undefined && input.DeliveryType.toLowerCase() !== row.delivery_type.toLowerCase()) {
    throw new ApiError(ErrorCode.InvalidRequestFields, 'DeliveryType is fixed when the server is created.');
  }
  const patch = withHookPassword(ctx, withIpPool(ctx, serverSettingsPatch(input), input), row.inbound_hook_password);
  checkLegacyHooks(ctx, input);
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      if (patch.name) await checkNameFree(trx, accountId, patch.name, id);
      if (Object.keys(patch).length > 0) await trx.updateTable('servers').set(patch).where('id', '=', id).where('account_id', '=', accountId).execute();
      const updated = await getAccountServer(trx, accountId, id);
      await applyLegacyHooks(trx, ctx, id, input, serverHookOptions(updated));
      return updated;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(patch.name ?? row.name);
    throw err;
  }
}

/** Deletes the server and, through the foreign keys' ON DELETE CASCADE, everything it owns: tokens,
 * streams, messages (with recipients, attachments, events, opens, clicks), suppressions, bounces, webhooks
 * (with notifications and attempts), templates, statistics and idempotency keys. */
export async function deleteAccountServer(ctx: AppContext, accountId: number, id: number): Promise<ServerRow> {
  const row = await getAccountServer(ctx.db, accountId, id);
  // Its tokens go before anything else, in their own commit: from here on every process refuses them with
  // 401 (auth resolves tokens uncached), instead of accepting mail into a server that is being emptied.
  await revokeServerTokens(ctx.db, id);
  // Messages go first in short batches, so that a large server's delete does not hold the write lock
  // (SQLite) for one long cascade while other servers are sending; the final delete takes the rest.
  await deleteMessagesBefore(ctx, id, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  // The last sweep and the delete are one transaction that holds the server row (PostgreSQL: FOR UPDATE).
  // A message still being accepted (an API request authenticated before the revocation, inbound mail)
  // checks its foreign key to the server with a share lock, so it waits and then fails instead of
  // committing between the sweep and the delete: on PostgreSQL a message's children have no foreign key
  // to it (migration 0023) and would be left behind by the servers cascade.
  await ctx.db.transaction().execute(async (trx) => {
    await ctx.database.sql.lockRowsForUpdate(trx, 'servers', [id]);
    const rest = await trx.selectFrom('messages').select('id').where('server_id', '=', id).execute();
    for (let i = 0; i < rest.length; i += 500) await deleteMessageRows(trx, rest.slice(i, i + 500).map((r) => r.id), id);
    await trx.deleteFrom('servers').where('id', '=', id).where('account_id', '=', accountId).execute();
  });
  return row;
}
