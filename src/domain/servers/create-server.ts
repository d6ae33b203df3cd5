import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';
import { generateToken, storeToken } from '../tokens/tokens.js';

/** The three streams every server is born with (docs/reference/servers.md). */
export const DEFAULT_STREAMS = [
  { id: 'outbound', name: 'Default Transactional Stream', type: 'Transactional' },
  { id: 'inbound', name: 'Default Inbound Stream', type: 'Inbound' },
  { id: 'broadcast', name: 'Default Broadcast Stream', type: 'Broadcasts' },
] as const;

export interface NewServer {
  accountId: number;
  name: string;
  color?: string;
  deliveryType?: 'Live' | 'Sandbox';
  /** Use this token value instead of generating one (bootstrap from MAILROOM_SERVER_TOKEN). */
  token?: string;
  settings?: Partial<Omit<Database['servers'], 'id' | 'account_id' | 'name' | 'created_at'>>;
}

/** Creates a server with its default streams and first token; run inside the caller's transaction. */
export async function createServer(
  trx: Kysely<Database>,
  input: NewServer,
  now: number,
): Promise<{ serverId: number; token: string }> {
  const inboundHash = randomBytes(16).toString('hex');
  const row = await trx
    .insertInto('servers')
    .values({
      account_id: input.accountId,
      name: input.name,
      color: input.color ?? 'Purple',
      delivery_type: input.deliveryType ?? 'Live',
      inbound_hash: inboundHash,
      created_at: now,
      ...input.settings,
    } as any)
    .returning('id')
    .executeTakeFirstOrThrow();
  const serverId = row.id;
  for (const s of DEFAULT_STREAMS) {
    await trx
      .insertInto('message_streams')
      .values({ server_id: serverId, id: s.id, name: s.name, description: null, type: s.type, is_default: 1, created_at: now })
      .execute();
  }
  const token = input.token ?? generateToken();
  await storeToken(trx, { kind: 'server', accountId: input.accountId, serverId, value: token, now });
  return { serverId, token };
}
