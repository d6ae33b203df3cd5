// The as-sent source of messages that have none yet, kept when the delivery hands them off.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../infra/db/schema.js';

/**
 * One statement per 100 messages (a CASE on the id, valid on both databases) instead of one per message:
 * on PostgreSQL, one UPDATE per message was most of the time a group of outcomes took to commit
 * (bench/deliver). The caller owns the transaction.
 */
export async function storeMimes(trx: Kysely<Database>, mimes: Array<[string, string]>): Promise<void> {
  for (let i = 0; i < mimes.length; i += 100) {
    const part = mimes.slice(i, i + 100);
    const cases = sql.join(part.map(([id, mime]) => sql`when ${id} then ${mime}`), sql` `);
    const ids = sql.join(part.map(([id]) => id));
    await sql`update messages set mime = case id ${cases} end where id in (${ids}) and mime is null`.execute(trx);
  }
}
