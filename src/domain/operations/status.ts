// `mailroom status`: what an operator asks first when mail is late. Queue depths and the oldest job, workers
// alive, and the destinations failing right now with their last replies.
import type { AppContext } from '../app-context.js';
import { failingGroups, type FailingGroup } from '../../infra/jobs/failing.js';
import { queueStats } from '../../infra/jobs/stats.js';
import { bulkCounts, type BulkCounts } from '../bulk/counts.js';
import { listPostmaster } from '../inbound/postmaster.js';
import { unalignedCost, unalignedDomains } from '../domains/alignment.js';
import { formatTlsReport, tlsReport, type TlsDestination } from './tls-report.js';

/** A worker whose heartbeat is older than this is shown as stale (killed or hung). */
const STALE_MS = 45_000;

export interface StatusReport {
  queues: Awaited<ReturnType<typeof queueStats>>;
  workers: Array<{ workerId: string; host: string; pid: number; lastBeatSecondsAgo: number; stale: boolean }>;
  failingDestinations: FailingGroup[];
  /** Destinations being slowed down after throttling replies (delivery/pacing, table destination_pace). */
  pacedDestinations: Array<{ destination: string; strikes: number; pausedSecondsLeft: number; ratePerMinute: number; lastReply: string }>;
  /** Outbound TLS per destination domain, TLS-RPT style (tls-report.ts). */
  tls: TlsDestination[];
  /** Mail kept for postmaster (domain/inbound/postmaster.ts), read with `mailroom postmaster`. */
  postmaster: { messages: number; newestAt: string | null };
  /** Bulk requests by status and the entries still to be compiled (domain/bulk/counts.ts). */
  bulk: BulkCounts;
  /** Domains sending without a verified Return-Path (domains/alignment.ts) and what it costs them. */
  unaligned: { total: number; names: string[]; cost: string };
}

export async function statusReport(ctx: AppContext): Promise<StatusReport> {
  const now = ctx.clock.now();
  const queues = await queueStats(ctx.database, now);
  const workers = (await ctx.db.selectFrom('worker_heartbeats').selectAll().orderBy('started_at').execute()).map((w) => ({
    workerId: w.worker_id,
    host: w.host,
    pid: w.pid,
    lastBeatSecondsAgo: Math.round((now - w.beat_at) / 1000),
    stale: now - w.beat_at > STALE_MS,
  }));
  const failingDestinations = await failingGroups(ctx.db);
  const paced = await ctx.db.selectFrom('destination_pace').selectAll().orderBy('updated_at', 'desc').limit(20).execute();
  const pacedDestinations = paced.map((p) => ({
    destination: p.destination,
    strikes: Number(p.strikes),
    pausedSecondsLeft: Math.max(0, Math.round((Number(p.paused_until) - now) / 1000)),
    ratePerMinute: Number(p.rate_per_minute),
    lastReply: p.last_reply.slice(0, 200),
  }));
  const pm = await listPostmaster(ctx, 1);
  const postmaster = { messages: pm.total, newestAt: pm.messages[0] ? new Date(pm.messages[0].receivedAt).toISOString() : null };
  return { queues, workers, failingDestinations, pacedDestinations, tls: await tlsReport(ctx, now), postmaster, bulk: await bulkCounts(ctx.db), unaligned: { ...(await unalignedDomains(ctx)), cost: unalignedCost(ctx.config.returnPathDomain) } };
}

const secs = (ms: number) => (ms < 1000 ? '0 s' : ms < 120_000 ? `${Math.round(ms / 1000)} s` : ms < 7_200_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 3_600_000)} h`);

export function formatStatus(r: StatusReport): string {
  const out: string[] = ['Queues:'];
  if (r.queues.length === 0) out.push('  (empty)');
  for (const q of r.queues) out.push(`  ${q.queue.padEnd(14)} depth ${String(q.depth).padStart(7)}  due ${String(q.due).padStart(7)}  leased ${String(q.leased).padStart(5)}  oldest ${secs(q.oldestAgeMs)}`);
  out.push('Workers:');
  if (r.workers.length === 0) out.push('  (none running)');
  for (const w of r.workers) out.push(`  ${w.workerId.padEnd(18)} ${w.host} pid ${w.pid}  last beat ${w.lastBeatSecondsAgo} s ago${w.stale ? '  STALE' : ''}`);
  out.push('Failing destinations:');
  if (r.failingDestinations.length === 0) out.push('  (none)');
  for (const d of r.failingDestinations) out.push(`  ${d.queue}/${d.destination}: ${d.jobs} job(s), ${d.attempts} attempt(s); last: ${d.lastError}`);
  out.push('Slowed destinations (throttling replies):');
  if (r.pacedDestinations.length === 0) out.push('  (none)');
  for (const p of r.pacedDestinations) {
    const pause = p.pausedSecondsLeft > 0 ? `paused ${secs(p.pausedSecondsLeft * 1000)} more, ` : '';
    out.push(`  ${p.destination}: ${pause}${p.ratePerMinute}/min after ${p.strikes} throttle(s); last: ${p.lastReply}`);
  }
  out.push(...formatTlsReport(r.tls));
  const pm = r.postmaster;
  out.push(`Postmaster: ${pm.messages} message${pm.messages === 1 ? '' : 's'}${pm.newestAt ? ` (newest ${pm.newestAt}; read them with \`mailroom postmaster\`)` : ''}`);
  const b = r.bulk;
  const byStatus = Object.entries(b.requests).map(([status, n]) => `${status} ${n}`).join(', ');
  out.push(`Bulk requests: ${byStatus}; ${b.entriesPending} entr${b.entriesPending === 1 ? 'y' : 'ies'} waiting to be compiled`);
  const u = r.unaligned;
  out.push(`Domains without a verified Return-Path: ${u.total === 0 ? '(none)' : `${u.total} (${u.names.join(', ')}${u.total > u.names.length ? ', ...' : ''})`}`);
  if (u.total > 0) out.push(`  ${u.cost}`);
  return `${out.join('\n')}\n`;
}
