// DKIM signing (RFC 6376) of a message held whole in memory: rsa-sha256 (RFC 8301), relaxed/relaxed.
// Replaces nodemailer's streaming signer, which costs about twice the RSA operation itself per message
// (stream plumbing, PEM parsing); here the work is two regex passes, one SHA-256 of the body and one
// crypto.sign with a parsed key that is kept per PEM.
import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { relaxedBody, relaxedHeader, splitMessage, type HeaderField } from './canonicalize.js';

export interface DkimKey {
  domainName: string;
  keySelector: string;
  /** PKCS#8 or PKCS#1 PEM. */
  privateKey: string;
}

/**
 * Header fields signed, when present: RFC 6376 5.4.1's list plus the one-click unsubscribe field (RFC 8058
 * 4, which requires List-Unsubscribe and List-Unsubscribe-Post to be signed).
 */
export const SIGNED_FIELDS = [
  'From', 'Sender', 'Reply-To', 'Subject', 'Date', 'Message-ID', 'To', 'Cc', 'MIME-Version', 'Content-Type',
  'Content-Transfer-Encoding', 'Content-ID', 'Content-Description', 'In-Reply-To', 'References', 'List-Id',
  'List-Help', 'List-Unsubscribe', 'List-Unsubscribe-Post', 'List-Subscribe', 'List-Post', 'List-Owner',
  'List-Archive', 'Feedback-ID',
];
const SIGNED = new Set(SIGNED_FIELDS.map((f) => f.toLowerCase()));

/**
 * Fields named once more in h= than the message has them ("oversigning", RFC 6376 8.15): a verifier hashes
 * the extra name as an empty instance (5.4.2), so a relay that adds a second From, Subject, To, Date or
 * Message-ID, which many readers show in place of the signed one, breaks the signature.
 */
export const OVERSIGNED_FIELDS = ['From', 'Subject', 'To', 'Date', 'Message-ID'];

// Parsing a PEM key costs several times the signature made with it (~1 ms against ~0.3 ms for RSA-2048);
// keys are few, so the parsed form is kept.
const keyCache = new Map<string, KeyObject>();
export function privateKeyObject(pem: string): KeyObject {
  let k = keyCache.get(pem);
  if (!k) {
    k = createPrivateKey(pem);
    if (keyCache.size >= 1000) keyCache.clear();
    keyCache.set(pem, k);
  }
  return k;
}

/**
 * Fields to sign: h= names them in the order they appear; for a name present more than once, verifiers take
 * the instances from the bottom up (RFC 6376 5.4.2), so the hashed instances follow that rule.
 */
function fieldsToSign(fields: HeaderField[]): { names: string[]; hashed: HeaderField[] } {
  const names: string[] = [];
  const byName = new Map<string, HeaderField[]>();
  for (const f of fields) {
    const n = f.name.trim().toLowerCase();
    if (!SIGNED.has(n)) continue;
    names.push(f.name.trim());
    byName.set(n, [...(byName.get(n) ?? []), f]);
  }
  const hashed = names.map((n) => byName.get(n.toLowerCase())!.pop()!);
  return { names: [...names, ...OVERSIGNED_FIELDS], hashed };
}

/** Folds a tag list at the separators so that no line passes 78 characters (RFC 5322 2.1.1). */
function foldList(prefix: string, items: string[], sep: string): string {
  let out = prefix;
  let line = prefix.length;
  items.forEach((item, i) => {
    const piece = i < items.length - 1 ? item + sep : item;
    if (line + piece.length > 76 && line > 1) {
      out += '\r\n ';
      line = 1;
    }
    out += piece;
    line += piece.length;
  });
  return out;
}

/**
 * The DKIM-Signature header field (with its CRLF) for a message. `auid`: a domain for the i= tag, the same as
 * or a subdomain of d= (RFC 6376 3.5), on whose behalf the signing domain signs.
 */
export function dkimSignatureField(message: Buffer, key: DkimKey, auid?: string): string {
  const { fields, body } = splitMessage(message.toString('latin1'));
  const bh = createHash('sha256').update(relaxedBody(body), 'latin1').digest('base64');
  const { names, hashed } = fieldsToSign(fields);
  const head =
    `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=${key.domainName};\r\n` +
    (auid ? ` i=@${auid};\r\n` : '') +
    ` q=dns/txt; s=${key.keySelector};\r\n bh=${bh};\r\n` +
    `${foldList(' h=', names, ':')};\r\n b=`;
  // The signature covers the signed fields and then this field itself with an empty b= (RFC 6376 3.7), the
  // latter without its final CRLF.
  let data = '';
  for (const f of hashed) data += `${relaxedHeader(f.raw)}\r\n`;
  data += relaxedHeader(head);
  const b = sign('sha256', Buffer.from(data, 'latin1'), privateKeyObject(key.privateKey)).toString('base64');
  // b= is folded every 72 characters; white space inside the value is ignored by verifiers (RFC 6376 3.5).
  return `${head}${b.replace(/(.{72})(?=.)/g, '$1\r\n  ')}\r\n`;
}

/** The message with a DKIM-Signature field prepended. */
export function dkimSign(message: Buffer, key: DkimKey): Buffer {
  return Buffer.concat([Buffer.from(dkimSignatureField(message, key), 'latin1'), message]);
}

/**
 * Signed for the From domain and, when the envelope (Return-Path) domain is a subdomain of the signing
 * domain, a second time by the same key with i=@<envelope domain>. Filters credit a valid signature "from
 * the envelope-From domain" by the signature's identity (SpamAssassin's DKIM_VALID_EF takes the i= domain
 * when there is one, else d=, and wants it equal to the envelope domain), while the author-domain credit and
 * DMARC go by d=; one signature cannot carry both when the two domains differ. The second signature uses
 * the same published key, so nothing more is asked of the sender's DNS.
 */
export function dkimSignAligned(message: Buffer, key: DkimKey, envelopeDomain: string | null): Buffer {
  const env = envelopeDomain?.toLowerCase() ?? '';
  const d = key.domainName.toLowerCase();
  if (!env.endsWith(`.${d}`)) return dkimSign(message, key);
  const author = dkimSignatureField(message, key);
  const envelope = dkimSignatureField(message, key, env);
  return Buffer.concat([Buffer.from(author + envelope, 'latin1'), message]);
}
