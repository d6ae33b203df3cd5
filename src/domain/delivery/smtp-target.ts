// Where one SMTP connection goes and how it must be secured: resolved by targets.ts, opened by smtp-pool.ts.
// Its own file so that the pool (held by the application context) depends on nothing that reads the context.
import type { StsTarget } from './mta-sts/tls-record.js';

export interface SmtpTarget {
  /** Address (or relay host name) to connect to. */
  host: string;
  port: number;
  /** Implicit TLS (smtps relay). */
  secure: boolean;
  /** Host name for TLS SNI and for DestinationServer. */
  serverName: string;
  auth?: { user: string; pass: string };
  /**
   * Relay, or an MX under an MTA-STS policy in enforce mode: certificates are verified. Other MX hosts:
   * opportunistic STARTTLS (RFC 7435), the certificate checked and recorded but not required.
   */
  verifyTls: boolean;
  /** STARTTLS must succeed (MTA-STS enforce, RFC 8461 5); never a plaintext fallback. */
  requireTls: boolean;
  relay: boolean;
  /** MTA-STS as applied to this host (direct MX delivery only). */
  sts?: StsTarget;
}
