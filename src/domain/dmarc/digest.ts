// The weekly DMARC digest: once a week (a periodic task, one run per week across workers), for
// each domain with reports in the seven UTC days before the run's day, one summary (query.ts's figures)
//  - as a webhook notification, RecordType "DmarcDigest", to the webhooks of the domain's account's servers
//    that have the Bounce trigger enabled: a domain belongs to the account, not to a server, and the Triggers
//    object stays the hosted service's; a Bounce subscriber is the one watching deliverability, which is what
//    DMARC results are about. The notification's event id is 0 (it is no message event): receivers tell
//    digests apart by Domain and From/To. One notification per webhook URL, however many streams share it;
//  - as mail (the service's own system mail, delivery/system-mail.ts) to the account's console admins.
// Everything for one domain is written in one transaction (notifications with their jobs, mail jobs).
import type { AppContext } from '../app-context.js';
import { enqueueJobs } from '../../infra/jobs/enqueue.js';
import { DAY_MS } from '../../infra/time.js';
import { SYSTEM_MAIL_QUEUE } from '../delivery/system-mail.js';
import { parseTriggers } from '../webhooks/triggers.js';
import { webhookJob } from '../webhooks/queue.js';
import { dmarcSummary } from './query.js';

export const DIGEST_EVERY_MS = 7 * DAY_MS;
const TOP_SOURCES = 10;

export interface DmarcDigest {
  RecordType: 'DmarcDigest';
  Domain: string;
  DomainID: number;
  From: string;
  To: string;
  Policy: string;
  Reports: number;
  Total: number;
  Aligned: number;
  Failing: number;
  /** Aligned / Total in percent, one decimal; 0 without mail. */
  PassRate: number;
  /** Failing volume from sources that are not mailroom's own: mail others send as the domain. */
  FailingFromOtherSources: number;
  Sources: Array<{ SourceIP: string; OwnSource: boolean; Total: number; Aligned: number; Failing: number }>;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function buildDigest(ctx: AppContext, d: { id: number; name: string; dmarc_policy: string }, from: string, to: string): Promise<DmarcDigest> {
  const s = await dmarcSummary(ctx, d.id, from, to);
  return {
    RecordType: 'DmarcDigest',
    Domain: d.name,
    DomainID: d.id,
    From: s.FromDate,
    To: s.ToDate,
    Policy: d.dmarc_policy,
    Reports: s.Reports,
    Total: s.Total,
    Aligned: s.Aligned,
    Failing: s.Failing,
    PassRate: s.Total ? Math.round((s.Aligned / s.Total) * 1000) / 10 : 0,
    FailingFromOtherSources: s.Sources.filter((x) => !x.OwnSource).reduce((n, x) => n + x.Failing, 0),
    Sources: s.Sources.slice(0, TOP_SOURCES),
  };
}

function digestMail(g: DmarcDigest, to: string): { to: string; subject: string; text: string } {
  const lines = [
    `DMARC reports for ${g.Domain}, ${g.From} to ${g.To} (UTC):`,
    '',
    `${g.Total} messages reported by receivers in ${g.Reports} reports: ${g.Aligned} passed DMARC (${g.PassRate}%), ${g.Failing} failed.`,
    `Failing mail from sources that are not this service: ${g.FailingFromOtherSources}.`,
    `Published policy: ${g.Policy || 'none found'}.`,
    '',
    'Largest sources:',
    ...g.Sources.map((x) => `  ${x.SourceIP}${x.OwnSource ? ' (this service)' : ''}: ${x.Total} messages, ${x.Failing} failing`),
  ];
  return { to, subject: `DMARC weekly digest for ${g.Domain}: ${g.PassRate}% passing`, text: lines.join('\n') };
}

/** One week's digests; returns how many domains got one. */
export async function sendWeeklyDigests(ctx: AppContext, now: number): Promise<number> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const fromMs = today - 7 * DAY_MS;
  const toMs = today - DAY_MS;
  const domainIds = (
    await ctx.db.selectFrom('dmarc_records').select('domain_id').distinct().where('domain_id', 'is not', null).where('day', '>=', fromMs).where('day', '<=', toMs).execute()
  ).map((r) => r.domain_id!);
  let sent = 0;
  for (const id of domainIds) {
    const d = await ctx.db.selectFrom('domains').select(['id', 'name', 'account_id', 'dmarc_policy']).where('id', '=', id).executeTakeFirst();
    if (!d) continue;
    const digest = await buildDigest(ctx, d, day(fromMs), day(toMs));
    const body = JSON.stringify(digest);
    const hooks = await ctx.db
      .selectFrom('webhooks')
      .innerJoin('servers', 'servers.id', 'webhooks.server_id')
      .select(['webhooks.id', 'webhooks.server_id', 'webhooks.url', 'webhooks.triggers'])
      .where('servers.account_id', '=', d.account_id)
      .orderBy('webhooks.id')
      .execute();
    const seen = new Set<string>();
    const targets = hooks.filter((h) => parseTriggers(h.triggers).Bounce.Enabled && !seen.has(h.url) && seen.add(h.url));
    const admins = await ctx.db.selectFrom('console_users').select('email').where('account_id', '=', d.account_id).where('role', '=', 'admin').execute();
    await ctx.db.transaction().execute(async (trx) => {
      for (const h of targets) {
        const n = await trx
          .insertInto('webhook_notifications')
          .values({ webhook_id: h.id, server_id: h.server_id, event_id: 0, record_type: 'DmarcDigest', payload: body, status: 'pending', attempts: 0, created_at: now, next_attempt_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        await enqueueJobs(trx, [webhookJob(Number(n.id), h.id, now)], now);
      }
      if (admins.length) await enqueueJobs(trx, admins.map((a) => ({ queue: SYSTEM_MAIL_QUEUE, payload: digestMail(digest, a.email), runAt: now })), now);
    });
    ctx.logger.info({ domain: d.name, webhooks: targets.length, mails: admins.length, total: digest.Total }, 'DMARC weekly digest');
    sent++;
  }
  return sent;
}
