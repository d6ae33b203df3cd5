// STARTTLS for the bounce listener (RFC 3207). Production MTAs (Postfix smtp_tls_security_level=may, Exim,
// Exchange Online, Gmail) encrypt a delivery whenever the server offers STARTTLS, and DSNs quote the
// original message, so reports should not cross the network in clear when a certificate is configured.
// Encryption stays opportunistic: the listener still takes reports in plaintext from MTAs that do not use
// TLS (RFC 3207 4: a publicly-referenced server must not require STARTTLS for mail to local recipients).
import type { SMTPServerOptions } from 'smtp-server';
import type { InboundTls } from '../infra/config-types.js';

export function inboundTlsOptions(tls: InboundTls | null): Partial<SMTPServerOptions> {
  // Without a certificate the options stay empty and STARTTLS is disabled by the caller: smtp-server would
  // otherwise offer its built-in certificate, whose private key is public.
  if (!tls) return {};
  return {
    key: tls.key,
    cert: tls.cert,
    // smtp-server lowers Node's default to TLS 1.0 for old clients; RFC 8996 deprecates TLS 1.0 and 1.1.
    // An MTA whose handshake fails retries in plaintext (opportunistic TLS), so nothing is lost.
    minVersion: 'TLSv1.2',
    // The connecting MTA is not asked for a certificate: reports are authorized by the signed VERP address.
    requestCert: false,
  };
}
