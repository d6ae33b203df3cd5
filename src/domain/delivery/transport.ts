// Hands messages for one destination domain to the next hop: the relay, or the domain's MX hosts in order
// of preference, moving to the next host when a connection cannot be made (RFC 5321 5.1). Each item is one
// SMTP transaction (its own VERP envelope sender); all items share one session per host. A connection cut
// during one transaction fails that item only: the rest go on at once over a fresh connection (bounded).
import type { AppContext } from '../app-context.js';
import { localReply, type SmtpReply } from '../../infra/smtp-client/replies.js';
import { connectFailureResult, refusedRecord, sessionRecord, type TlsRecord } from './mta-sts/tls-record.js';
import type { IpPool } from './ip-pools/parse.js';
import { resolveTargets, RoutingError, type SmtpTarget } from './targets.js';
import type { SmtpFailure, SmtpPool, SmtpSession } from './smtp-pool.js';
import { commandStage, sessionFailureStage, type FailureStage } from './failure-stage.js';
import { slowsDestination } from './pacing/signals.js';
import { isThrottling, notAttempted } from './pacing/throttle.js';

export interface Envelope {
  from: string;
  to: string;
  raw: Buffer;
}

export type SendResult =
  /** The server took responsibility for the message (2xx after DATA). */
  | { ok: true; reply: SmtpReply; server: string; ip: string; tls?: TlsRecord }
  /**
   * A reply refused it (4xx/5xx), or no server could be reached (reply written locally, network: true).
   * `stage`: where it failed (failure-stage.ts), which tells pacing one recipient's deferral from trouble
   * with the destination; set by the transport on every failure.
   */
  | {
      ok: false;
      reply: SmtpReply;
      server: string;
      ip: string;
      network: boolean;
      stage?: FailureStage;
      exchange?: SmtpExchange;
      tls?: TlsRecord;
      /** The bounce type of a recipient at the bounce-testing domain (fake-bounce.ts): nothing was sent. */
      fakeBounce?: string;
    };

/** What was said in a refused SMTP transaction, kept as the bounce's dump (smtp-transcript.ts). */
export interface SmtpExchange {
  from: string;
  to: string;
  /** The command the reply refused: MAIL FROM, RCPT TO or DATA. */
  command: string;
}

/**
 * Fresh connections opened to one target, in one call, after a transaction was cut. Two tell "one
 * recipient's transaction trips the peer" (the rest then goes through) from "the host drops everything"
 * without opening one connection per recipient to a host that drops them all: past the bound the remaining
 * items fall to the next target, and then to the retry schedule, as when a host cannot be reached.
 */
const MAX_REDIALS_PER_TARGET = 2;

function describe(err: unknown): string {
  const e = err as SmtpFailure;
  return e?.message ? e.message.replace(/\s+/g, ' ').slice(0, 500) : String(err);
}

/**
 * Sends each envelope; the result array matches the input order. Never throws: every failure becomes a
 * result for the items it touched. `source`: the IP pool the connections leave from (null: the OS's choice).
 */
export async function deliverToDomain(ctx: AppContext, pool: SmtpPool, domain: string, items: Envelope[], source: IpPool | null = null): Promise<SendResult[]> {
  const results: Array<SendResult | undefined> = items.map(() => undefined);
  let targets: SmtpTarget[];
  try {
    targets = await resolveTargets(ctx, domain);
  } catch (err) {
    const r = err instanceof RoutingError ? err : new RoutingError(describe(err), localReply(451, '4.4.3', describe(err)), false);
    return items.map(() => ({ ok: false, reply: r.reply, server: domain, ip: '', network: !r.permanent, stage: 'local', tls: r.tls }));
  }
  let lastError = 'no mail host could be reached';
  let lastServer = domain;
  let lastIp = '';
  /** Where the last failure to reach a host happened: what the items no host took are attributed to. */
  let lastStage: FailureStage = 'connect';
  /** The TLS requirement of an MTA-STS policy refused the last host tried: the deferral says so (4.7.x). */
  let tlsRefusal: { reply: SmtpReply; tls: TlsRecord } | null = null;
  // A transaction's reply that slows the whole destination (pacing/signals.ts: a 421, a throttle at MAIL FROM,
  // one about the sending side) stops this delivery: the rest is not tried now. One recipient's deferral
  // (e.g. a greylisting "451 4.7.1 Try again later" to its RCPT TO) does not: the next recipient goes on.
  // A throttling greeting lets the next host be tried (RFC 5321 5.1), and answers for the items none took.
  let throttled: { target: SmtpTarget; reply: SmtpReply; greeting: boolean } | null = null;
  for (const target of targets) {
    if ((throttled && !throttled.greeting) || results.every((r) => r !== undefined)) break;
    let session: SmtpSession;
    try {
      session = await pool.acquire(target, false, source);
    } catch (err) {
      lastError = describe(err);
      lastServer = target.serverName;
      lastIp = target.host;
      lastStage = sessionFailureStage(err);
      if (isThrottling((err as SmtpFailure).reply)) throttled = { target, reply: (err as SmtpFailure).reply!, greeting: true };
      // Kept over later plain connection failures: the policy refusal is what the sender needs to see.
      const refusal = target.requireTls ? tlsRefused(target, err) : null;
      if (refusal) {
        tlsRefusal = refusal;
        ctx.logger.warn({ domain, server: target.serverName, ip: target.host, result: refusal.tls.result, err: lastError }, 'delivery: MTA-STS refused an MX host');
      }
      continue; // next MX (or next address of this one)
    }
    tlsRefusal = null;
    let held = true;
    let staleRetried = false;
    let redials = 0;
    try {
      for (let i = 0; i < items.length; i++) {
        if (results[i] !== undefined) continue;
        const it = items[i];
        const t0 = performance.now();
        try {
          const reply = await session.send(it.from, it.to, it.raw);
          results[i] = { ok: true, reply, server: target.serverName, ip: target.host, tls: sessionRecord(target.sts, session.conn.tls) };
          ctx.metrics.smtpTransactionSeconds.observe({ outcome: 'accepted' }, (performance.now() - t0) / 1000);
        } catch (err) {
          const e = err as SmtpFailure;
          ctx.metrics.smtpTransactionSeconds.observe({ outcome: e.reply?.code ? 'refused' : 'failed' }, (performance.now() - t0) / 1000);
          if (e.reply?.code) {
            const exchange = { from: it.from, to: it.to, command: e.command ?? 'DATA' };
            const refused: SendResult = { ok: false, reply: e.reply, server: target.serverName, ip: target.host, network: false, stage: commandStage(e.command), exchange };
            results[i] = { ...refused, tls: sessionRecord(target.sts, session.conn.tls) };
            if (slowsDestination(refused)) throttled = { target, reply: e.reply, greeting: false };
            await session.reset();
            if (!session.broken && !throttled) continue;
            break;
          }
          lastError = describe(err);
          lastServer = target.serverName;
          lastIp = target.host;
          if (session.reused && !staleRetried) {
            // A pooled session may simply have been closed by the server while idle: the item is tried once
            // more on a fresh connection, which is not yet a sign of trouble with this host.
            staleRetried = true;
            i--;
          } else {
            // A fresh connection was cut during this item's transaction. Only that transaction failed (it may
            // be what trips the peer: its size, a filter that crashes on it), so it alone gets a transient
            // failure and goes back on the retry schedule; the items after it go on at once.
            results[i] = { ok: false, reply: localReply(451, '4.4.2', lastError), server: target.serverName, ip: target.host, network: true, stage: 'cut' };
            // A host that cuts every fresh connection: what it was not given is a dropped connection's.
            lastStage = 'connect';
            if (redials >= MAX_REDIALS_PER_TARGET) break;
            redials++;
          }
          pool.release(session);
          held = false;
          try {
            session = await pool.acquire(target, true, source);
            held = true;
          } catch (err2) {
            lastError = describe(err2);
            lastStage = sessionFailureStage(err2);
            break;
          }
        }
      }
    } finally {
      if (held) pool.release(session);
    }
  }
  if (throttled) return results.map((r) => r ?? notAttempted(throttled, results.some((x) => x !== undefined)));
  return results.map(
    (r) =>
      r ?? { ok: false, reply: tlsRefusal?.reply ?? localReply(451, '4.4.1', lastError), server: lastServer, ip: lastIp, network: true, stage: tlsRefusal ? 'local' : lastStage, tls: tlsRefusal?.tls },
  );
}

/**
 * When a host was refused because TLS could not be had as an enforced MTA-STS policy requires (RFC 8461 5):
 * the deferral's reply, 4.7.4 when STARTTLS was missing and 4.7.5 for a certificate (as Postfix words them),
 * never a plaintext fallback. Null when the connection failed for another reason.
 */
function tlsRefused(target: SmtpTarget, err: unknown): { reply: SmtpReply; tls: TlsRecord } | null {
  const result = connectFailureResult(err);
  if (!result) return null;
  const code = (err as { code?: string }).code ?? null;
  const why =
    result === 'starttls-not-supported'
      ? 'TLS is required by the MTA-STS policy, but was not offered by the host'
      : `the certificate of ${target.serverName} did not verify (${result}: ${code ?? describe(err)}) and the MTA-STS policy is enforced`;
  const enhanced = result === 'starttls-not-supported' ? '4.7.4' : '4.7.5';
  const tls = refusedRecord(target.sts, result, result === 'starttls-not-supported' ? null : code);
  return { reply: localReply(451, enhanced, `${why}; not delivered to ${target.serverName} [${target.host}]`), tls };
}
