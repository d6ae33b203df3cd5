// A message's size as Mailpit reports it (mailpit/size.ts computes it from the composed message), stored
// the first time it is computed so that later lists read it.
import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';

/** Stores each size where none is stored yet; the caller owns the transaction. */
export async function storeSizes(trx: Kysely<Database>, sizes: Array<{ id: string; size: number }>): Promise<void> {
  for (const f of sizes) await trx.updateTable('messages').set({ size: f.size }).where('id', '=', f.id).where('size', 'is', null).execute();
}
