// Settings that name PEM files. The files are read and checked at start, so that a wrong path, a file that
// is not PEM, or a key that does not belong to its certificate stops the process instead of failing each
// TLS handshake or delivery later.
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.js';
import type { InboundTls } from './infra/config-types.js';

function readPem(name: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(name, `cannot read ${JSON.stringify(path)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function certificate(name: string, path: string, pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new ConfigError(name, `${JSON.stringify(path)} is not a PEM certificate`);
  }
}

/** A certificate setting and its key setting (`CERT`, `KEY`): both or neither. */
export function readTlsPair(CERT: string, KEY: string, certPath: string, keyPath: string): InboundTls | null {
  if (!certPath && !keyPath) return null;
  if (!certPath) throw new ConfigError(CERT, `must be set together with ${KEY}`);
  if (!keyPath) throw new ConfigError(KEY, `must be set together with ${CERT}`);
  const cert = readPem(CERT, certPath);
  const key = readPem(KEY, keyPath);
  const x509 = certificate(CERT, certPath, cert);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError(KEY, `${JSON.stringify(keyPath)} is not a PEM private key (an encrypted key is not supported)`);
  }
  if (!x509.checkPrivateKey(privateKey)) throw new ConfigError(KEY, `${JSON.stringify(keyPath)} is not the private key of ${JSON.stringify(certPath)}`);
  return { certPath, keyPath, cert, key };
}

/** A CA certificate trusted besides Node's bundled roots. */
export function readCaFile(name: string, path: string): { path: string; pem: string } {
  const pem = readPem(name, path);
  certificate(name, path, pem);
  return { path, pem };
}
