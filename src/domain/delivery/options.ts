// Delivery tuning that is not part of the public configuration table: read once from the environment, with
// defaults that suit production. Documented in README ("Delivery").
import { hostname } from 'node:os';
import type { Config } from '../../infra/config-types.js';

const MIN = 60_000;

/**
 * Retry schedule for transient failures (4xx replies, network and DNS trouble), indexed by the job's stored
 * attempt count: 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, then every 4 h (close to ZoneMTA's 5..240 min ladder,
 * docs/reference/delivery-practice.md). The last retry is pulled in to the give-up time, so the give-up happens
 * at MAILROOM_DELIVERY_MAX_AGE_HOURS exactly, not up to 4 h later.
 */
export const DELIVERY_SCHEDULE: readonly number[] = [MIN, 5 * MIN, 15 * MIN, 30 * MIN, 60 * MIN, 120 * MIN, 240 * MIN];

export interface DeliveryOptions {
  /**
   * Lease on a claimed delivery job, renewed by the runner's heartbeat while the job runs (infra/jobs/renew.ts):
   * a worker that dies releases its jobs when the lease runs out. MAILROOM_DELIVERY_LEASE_SECONDS, default 30.
   */
  leaseMs: number;
  /** Name sent in EHLO: MAILROOM_EHLO_NAME, else the host name when it is fully qualified, else the return-path domain. */
  ehloName: string;
  /** Socket inactivity limit for one SMTP command (RFC 5321 4.5.3.2 recommends minutes; we use 60 s). */
  socketTimeoutMs: number;
  connectTimeoutMs: number;
  /** Idle pooled connections are closed after this long. */
  idleMs: number;
  /** MAILROOM_TLS_CA_FILE: an extra CA trusted when outbound certificates are verified. */
  tlsCa: string | null;
}

export function deliveryOptions(config: Config): DeliveryOptions {
  const host = hostname();
  return {
    leaseMs: config.deliveryLeaseMs,
    ehloName: config.ehloName ?? (host.includes('.') ? host : config.returnPathDomain),
    socketTimeoutMs: 60_000,
    connectTimeoutMs: 15_000,
    idleMs: 5_000,
    tlsCa: config.tlsCa?.pem ?? null,
  };
}
