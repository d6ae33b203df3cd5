// Signed links (tracking, unsubscribe, confirmation) and encryption at rest (DKIM private keys, webhook
// passwords) both derive their keys from one configured secret, with HKDF so that each purpose gets its own.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export interface Secrets {
  /** A compact, URL-safe token carrying `data`, signed for `purpose`. */
  sign(purpose: string, data: string): string;
  /** The data of a token made by sign() for the same purpose, or null when it is forged or malformed. */
  verify(purpose: string, token: string): string | null;
  /**
   * An opaque, URL-safe token carrying `data` for `purpose`: AES-256-GCM under a key of that purpose, one
   * base64url string of nonce, tag and ciphertext (no '.', unlike sign()'s tokens), so nobody without the key
   * can read it or make one.
   */
  encrypt(purpose: string, data: string): string;
  /** The data of a token made by encrypt() for the same purpose, or null when it is forged or malformed. */
  decrypt(purpose: string, token: string): string | null;
  /** AES-256-GCM: text -> "v1.<iv>.<tag>.<ciphertext>" (base64url). */
  seal(plain: string): string;
  open(sealed: string): string;
}

const b64u = (b: Buffer) => b.toString('base64url');

export function createSecrets(master: string): Secrets {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', Buffer.from(master), Buffer.alloc(0), info, 32));
  const macKeys = new Map<string, Buffer>();
  const macKey = (purpose: string) => {
    let k = macKeys.get(purpose);
    if (!k) macKeys.set(purpose, (k = derive(`mailroom sign ${purpose}`)));
    return k;
  };
  const encKey = derive('mailroom seal v1');
  const tokenKeys = new Map<string, Buffer>();
  const tokenKey = (purpose: string) => {
    let k = tokenKeys.get(purpose);
    if (!k) tokenKeys.set(purpose, (k = derive(`mailroom encrypt ${purpose}`)));
    return k;
  };
  // 16 bytes of HMAC-SHA256 (128 bits) is ample against forgery and keeps links short.
  const mac = (purpose: string, data: string) => createHmac('sha256', macKey(purpose)).update(data).digest().subarray(0, 16);
  return {
    sign(purpose, data) {
      return `${b64u(Buffer.from(data))}.${b64u(mac(purpose, data))}`;
    },
    verify(purpose, token) {
      if (typeof token !== 'string' || token.length > 4096) return null;
      const dot = token.indexOf('.');
      if (dot <= 0 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) return null;
      const data = Buffer.from(token.slice(0, dot), 'base64url').toString();
      const given = Buffer.from(token.slice(dot + 1), 'base64url');
      const want = mac(purpose, data);
      if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
      return data;
    },
    encrypt(purpose, data) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', tokenKey(purpose), iv);
      const body = Buffer.concat([c.update(data, 'utf8'), c.final()]);
      return b64u(Buffer.concat([iv, c.getAuthTag(), body]));
    },
    decrypt(purpose, token) {
      if (typeof token !== 'string' || token.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
      const raw = Buffer.from(token, 'base64url');
      if (raw.length < 29) return null;
      try {
        const d = createDecipheriv('aes-256-gcm', tokenKey(purpose), raw.subarray(0, 12));
        d.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
    seal(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', encKey, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return `v1.${b64u(iv)}.${b64u(c.getAuthTag())}.${b64u(body)}`;
    },
    open(sealed) {
      const [v, iv, tag, body] = sealed.split('.');
      if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed value');
      const d = createDecipheriv('aes-256-gcm', encKey, Buffer.from(iv, 'base64url'));
      d.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([d.update(Buffer.from(body, 'base64url')), d.final()]).toString('utf8');
    },
  };
}
