// What TLS a delivery attempt had, kept with its event (Details.TLS) and counted per destination in the
// style of TLS-RPT (RFC 8460 4.3.2.1 result types), so that a downgrade or a failing certificate shows.
import type { TlsInfo } from '../../../infra/smtp-client/tls-info.js';
import type { StsMode } from './policy.js';

/** 'success' or an RFC 8460 result type (4.3.2.1: TLS negotiation; 4.3.2.2: policy). */
export type TlsResult =
  | 'success'
  | 'starttls-not-supported'
  | 'certificate-host-mismatch'
  | 'certificate-expired'
  | 'certificate-not-trusted'
  | 'validation-failure'
  | 'sts-policy-fetch-error';

export const TLS_RESULTS: readonly TlsResult[] = [
  'success',
  'starttls-not-supported',
  'certificate-host-mismatch',
  'certificate-expired',
  'certificate-not-trusted',
  'validation-failure',
  'sts-policy-fetch-error',
];

/** MTA-STS as applied to one MX host (direct delivery only; a relay is trusted with the next hop). */
export interface StsTarget {
  mode: StsMode;
  /** The host matches the policy's mx patterns (always true without a policy). */
  listed: boolean;
  /** The domain publishes a policy that could not be fetched, and none was cached (RFC 8461 5: deliver as without one). */
  fetchError: string | null;
}

export interface TlsRecord {
  used: boolean;
  version: string | null;
  cipher: string | null;
  /** The certificate chained to a trusted root and named the MX host; null without TLS. */
  verified: boolean | null;
  certificateError: string | null;
  /** The MTA-STS mode applied; null through a relay. */
  mode: StsMode | null;
  /** What TLS-RPT would count; null through a relay. Under mode testing, the failure that enforce would have refused. */
  result: TlsResult | null;
}

/** Node's certificate verification codes (OpenSSL X509_V_ERR_* names) as RFC 8460 result types. */
export function certificateResult(code: string): TlsResult {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'certificate-host-mismatch';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return 'certificate-expired';
  if (/SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY_LEAF|CERT_UNTRUSTED|CERT_REJECTED|CERT_CHAIN_TOO_LONG/.test(code)) return 'certificate-not-trusted';
  return 'validation-failure';
}

const CERT_CODES = /^(ERR_TLS_CERT_ALTNAME_INVALID|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|INVALID_CA|INVALID_PURPOSE|PATH_LENGTH_EXCEEDED)/;

/** The TLS-RPT result of a failed connection, when TLS is what failed (not a refused or timed-out connect). */
export function connectFailureResult(err: unknown): TlsResult | null {
  const code = (err as { code?: string })?.code ?? '';
  if (code === 'ESTARTTLS') return 'starttls-not-supported';
  if (CERT_CODES.test(code)) return certificateResult(code);
  if (/^ERR_SSL_|^ERR_TLS_/.test(code)) return 'validation-failure';
  return null;
}

/** The record of a session that carried a transaction. */
export function sessionRecord(sts: StsTarget | undefined, tls: TlsInfo | null): TlsRecord {
  const base = {
    used: tls !== null,
    version: tls?.version ?? null,
    cipher: tls?.cipher ?? null,
    verified: tls ? tls.authorized : null,
    certificateError: tls?.authorizationError ?? null,
    mode: sts?.mode ?? null,
  };
  if (!sts) return { ...base, result: null };
  let result: TlsResult = 'success';
  if (sts.fetchError) result = 'sts-policy-fetch-error';
  else if (sts.mode !== 'none' && !sts.listed) result = 'validation-failure';
  else if (!tls) result = 'starttls-not-supported';
  // Without a policy an unverified certificate is the normal case of opportunistic TLS (RFC 7435), not a failure.
  else if (sts.mode !== 'none' && !tls.authorized) result = certificateResult(tls.authorizationError ?? '');
  return { ...base, result };
}

/** The record of a host refused before any transaction: the TLS requirement failed (enforce), or it is not listed. */
export function refusedRecord(sts: StsTarget | undefined, result: TlsResult, certificateError: string | null = null): TlsRecord {
  return { used: false, version: null, cipher: null, verified: certificateError ? false : null, certificateError, mode: sts?.mode ?? null, result };
}

/** The event's Details.TLS (PascalCase like the rest of the API's fields). */
export function tlsDetails(r: TlsRecord): Record<string, unknown> {
  const d: Record<string, unknown> = { Used: r.used };
  if (r.version) d.Version = r.version;
  if (r.cipher) d.Cipher = r.cipher;
  if (r.verified !== null) d.CertificateVerified = r.verified;
  if (r.certificateError) d.CertificateError = r.certificateError;
  if (r.mode) d.MTASTSMode = r.mode;
  if (r.result) d.Result = r.result;
  return d;
}
