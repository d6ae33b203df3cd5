// How long DMARC reports are kept: MAILROOM_DMARC_RETENTION_DAYS (default 180) after they arrive, refused and
// kept-apart ones alike; deleted by the retention run (domain/retention/purge.ts) in small batches, each its
// own transaction, records first. A deleted domain takes its reports with it.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { DAY_MS } from '../../infra/time.js';

const BATCH = 200;
const MAX_BATCHES = 50;

/** Deletes reports received before the retention cutoff; returns how many. */
export async function purgeDmarcReports(ctx: AppContext, now: number): Promise<number> {
  const cutoff = now - ctx.config.dmarc.retentionDays * DAY_MS;
  let deleted = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const ids = (await ctx.db.selectFrom('dmarc_reports').select('id').where('received_at', '<', cutoff).orderBy('received_at').limit(BATCH).execute()).map((r) => r.id);
    if (ids.length === 0) break;
    await ctx.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('dmarc_records').where('report_id', 'in', ids).execute();
      await trx.deleteFrom('dmarc_reports').where('id', 'in', ids).execute();
    });
    deleted += ids.length;
    if (ids.length < BATCH) break;
  }
  return deleted;
}

/** Inside deleteDomain's transaction. */
export async function deleteDomainReports(trx: Kysely<Database>, domainId: number): Promise<void> {
  await trx.deleteFrom('dmarc_records').where('domain_id', '=', domainId).execute();
  await trx.deleteFrom('dmarc_reports').where('domain_id', '=', domainId).execute();
}
