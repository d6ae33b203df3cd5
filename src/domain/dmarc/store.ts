// Takes in the DMARC aggregate reports of one received message for its report-address recipients, in ONE
// transaction: the listener answers 250 only after it commits (a crash before makes the reporter retry,
// RFC 5321 4.5.4.1, and dedupe_key makes the retry a no-op).
//
// Which domain a report belongs to (never another account's): at a domain's own sub-address
// (report-address.ts) the domain the address names, when the report's policy domain is exactly that name;
// at the bare report address the one domain of exactly that name when no other account holds that name and
// its DKIM record is verified (whoever adds a domain they do not control never gets its reports). Anything
// else is kept apart (account and domain null) for the operator.
//
// A malformed or hostile file is stored as refused, with its reason, and answered 250 all the same: the
// reason is where the operator and the domain's owner can read it, while a 554 would only reach the
// reporter's no-reply mailbox (or a forged envelope sender as backscatter) and tell nobody who can act.
//
// Nothing a stranger sends holds the event loop: the message is read on a parser thread (read-task.ts; a full
// pool answers 451 like any inbound mail), and the records are written in chunks with a turn of the loop
// between them.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { Database } from '../../infra/db/schema.js';
import { DAY_MS } from '../../infra/time.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { WorkerLost, taskModule } from '../../infra/threads/pool.js';
import type { Db } from '../../infra/db/database.js';
import { createGroupCommit, type GroupCommit } from '../../infra/db/group-commit.js';
import { parsersBusy } from '../parsers-busy.js';
import type { Read } from './read-task.js';
import type { DmarcTarget } from './report-address.js';
import type { DmarcReport } from './report.js';

export interface DmarcOutcome {
  address: string;
  outcome: 'dmarc-stored' | 'dmarc-refused' | 'dmarc-duplicate';
  reportId?: string;
  domain?: string;
  /** The report is kept apart: no domain of an account takes it. */
  unattached?: boolean;
  reason?: string;
  records?: number;
}

const RECORD_CHUNK = 500;
const READ_TASK = taskModule(import.meta.url, 'read-task');

/** The message's reports read on a parser thread (read-task.ts); the pool's refusals become the listener's. */
async function readOnThread(ctx: AppContext, raw: Buffer): Promise<Read[]> {
  try {
    return await ctx.threads.run<Read[]>(READ_TASK, 'readReports', raw);
  } catch (err) {
    const busy = parsersBusy(err);
    if (busy) throw busy;
    // Its heap limit or time budget: the same bytes would fail the same way again; kept as refused.
    if (err instanceof WorkerLost) return [{ name: '', digest: createHash('sha256').update(raw).digest('hex'), refused: `the message could not be read within the parser's limits (${err.message})` }];
    throw err;
  }
}

async function ownerOf(trx: Kysely<Database>, target: DmarcTarget, policyDomain: string): Promise<{ account_id: number; id: number; name: string } | null> {
  if (target.domainId !== null) {
    const d = await trx.selectFrom('domains').select(['id', 'account_id', 'name']).where('id', '=', target.domainId).executeTakeFirst();
    return d && d.name === policyDomain ? d : null;
  }
  const rows = await trx.selectFrom('domains').select(['id', 'account_id', 'name', 'dkim_verified']).where('name', '=', policyDomain).limit(2).execute();
  return rows.length === 1 && rows[0].dkim_verified === 1 ? rows[0] : null;
}

const json = (v: unknown) => JSON.stringify(v);

type Store = (trx: Kysely<Database>) => Promise<DmarcOutcome[]>;

// Through the infra's group commit, one message per transaction: on SQLite its COMMIT (tens of MB of WAL for a
// large report) is made durable off the event loop (sqlite-durability.ts), as the sending path's is.
const writers = new WeakMap<Db, GroupCommit<Store, DmarcOutcome[]>>();

function writerOf(ctx: AppContext): GroupCommit<Store, DmarcOutcome[]> {
  let w = writers.get(ctx.database);
  if (!w) {
    w = createGroupCommit<Store, DmarcOutcome[]>(ctx, {
      name: 'dmarc reports',
      maxWeight: 1,
      commit: async (trx, items) => {
        const out: DmarcOutcome[][] = [];
        for (const store of items) out.push(await store(trx));
        return out;
      },
    });
    writers.set(ctx.database, w);
  }
  return w;
}

export async function takeInDmarc(ctx: AppContext, raw: Buffer, remoteIp: string, targets: DmarcTarget[]): Promise<DmarcOutcome[]> {
  const reads = await readOnThread(ctx, raw);
  const now = ctx.clock.now();
  return writerOf(ctx).submit(async (trx) => {
    const out: DmarcOutcome[] = [];
    for (const t of targets) {
      for (const r of reads) {
        if ('refused' in r) {
          const d = t.domainId === null ? null : await trx.selectFrom('domains').select(['id', 'account_id', 'name']).where('id', '=', t.domainId).executeTakeFirst();
          const inserted = await trx
            .insertInto('dmarc_reports')
            .values({
              account_id: d?.account_id ?? null, domain_id: d?.id ?? null, policy_domain: d?.name ?? '', recipient: t.address, remote_ip: remoteIp,
              org_name: '', email: '', extra_contact: '', report_id: '', begin_at: 0, end_at: 0, policies: '[]', errors: '[]',
              record_count: 0, message_count: 0, status: 'refused', reason: r.refused, file_name: r.name, received_at: now,
              dedupe_key: `refused\n${t.address}\n${r.digest}`,
            })
            .onConflict((oc) => oc.column('dedupe_key').doNothing())
            .executeTakeFirst();
          const fresh = Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
          out.push({ address: t.address, outcome: fresh ? 'dmarc-refused' : 'dmarc-duplicate', reason: r.refused });
          continue;
        }
        const rep = r.report;
        const policyDomain = rep.policies[0].domain;
        const owner = await ownerOf(trx, t, policyDomain);
        const reporter = `${rep.orgName.toLowerCase()}\n${rep.email.toLowerCase()}`;
        const row = await trx
          .insertInto('dmarc_reports')
          .values({
            account_id: owner?.account_id ?? null, domain_id: owner?.id ?? null, policy_domain: policyDomain, recipient: t.address, remote_ip: remoteIp,
            org_name: rep.orgName, email: rep.email, extra_contact: rep.extraContact, report_id: rep.reportId, begin_at: rep.begin, end_at: rep.end,
            policies: json(rep.policies), errors: json(rep.errors), record_count: rep.records.length,
            message_count: rep.records.reduce((n, x) => n + x.count, 0), status: 'stored', reason: '', file_name: r.name, received_at: now,
            // Per target domain (or the kept-apart pile with its policy domain), reporter and report_id.
            dedupe_key: `${owner ? `d${owner.id}` : `none\n${policyDomain}`}\n${reporter}\n${rep.reportId}`,
          })
          .onConflict((oc) => oc.column('dedupe_key').doNothing())
          .returning('id')
          .executeTakeFirst();
        if (!row) {
          out.push({ address: t.address, outcome: 'dmarc-duplicate', reportId: rep.reportId, domain: policyDomain });
          continue;
        }
        await insertRecords(trx, Number(row.id), owner?.id ?? null, rep);
        out.push({ address: t.address, outcome: 'dmarc-stored', reportId: rep.reportId, domain: policyDomain, unattached: !owner, records: rep.records.length });
      }
    }
    return out;
  });
}

async function insertRecords(trx: Kysely<Database>, reportId: number, domainId: number | null, rep: DmarcReport): Promise<void> {
  const day = Math.floor(rep.begin / DAY_MS) * DAY_MS;
  for (let i = 0; i < rep.records.length; i += RECORD_CHUNK) {
    const rows = rep.records.slice(i, i + RECORD_CHUNK).map((x) => ({
      report_id: reportId,
      domain_id: domainId,
      day,
      source_ip: x.sourceIp,
      count: x.count,
      disposition: x.disposition,
      dkim: x.dkim,
      spf: x.spf,
      header_from: x.headerFrom,
      envelope_from: x.envelopeFrom,
      envelope_to: x.envelopeTo,
      dkim_auth: json(x.dkimAuth),
      spf_auth: json(x.spfAuth),
      reasons: json(x.reasons),
    }));
    await trx.insertInto('dmarc_records').values(rows).execute();
    // SQLite runs each statement on the event loop: a turn between chunks lets it answer other requests
    // (a report of 200,000 records is 400 chunks). Other database work waits for the transaction as before.
    await nextTurn();
  }
}
