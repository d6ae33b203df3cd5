// What the TLS layer of an SMTP session was (RFC 3207 STARTTLS, or implicit TLS): kept by the client and
// recorded with each delivery attempt. Node verifies the chain and, through checkServerIdentity, the host name
// (RFC 6125); with rejectUnauthorized off the outcome is only reported here, in authorized/authorizationError.
import type { TLSSocket } from 'node:tls';

/** What the TLS layer of a session was: recorded per delivery attempt. */
export interface TlsInfo {
  /** Negotiated protocol, e.g. TLSv1.3. */
  version: string | null;
  /** Cipher suite (IANA name when known). */
  cipher: string | null;
  /** The certificate chained to a trusted root and carried the expected host name. */
  authorized: boolean;
  /** Node's reason when not authorized, e.g. ERR_TLS_CERT_ALTNAME_INVALID, SELF_SIGNED_CERT_IN_CHAIN. */
  authorizationError: string | null;
}

export function tlsInfoOf(s: TLSSocket): TlsInfo {
  const c = s.getCipher();
  const err = s.authorizationError as unknown as Error | string | null | undefined;
  return {
    version: s.getProtocol() ?? null,
    cipher: c ? (c.standardName ?? c.name) : null,
    authorized: s.authorized,
    authorizationError: s.authorized ? null : typeof err === 'string' ? err : ((err as { code?: string })?.code ?? err?.message ?? 'unknown'),
  };
}
