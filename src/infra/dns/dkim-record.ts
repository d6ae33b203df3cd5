// Is a DKIM public key published at its host? The TXT record is a tag list (RFC 6376 3.2, 3.6.1); it
// matches when its p= tag (whitespace removed, 3.2 allows folding) equals the key and k= is rsa or absent.
import type { Resolver } from 'node:dns/promises';
import type { CheckResult } from './cname.js';
import { lookupTxt } from './lookup.js';

export function parseTagList(text: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).replace(/\s+/g, ''));
  }
  return tags;
}

export async function checkDkimRecord(dns: Resolver, host: string, publicKey: string): Promise<CheckResult> {
  const r = await lookupTxt(dns, host);
  if (r.kind === 'error') return 'error';
  if (r.kind === 'none') return 'fail';
  for (const text of r.value) {
    const tags = parseTagList(text);
    const v = tags.get('v');
    if (v !== undefined && v !== 'DKIM1') continue;
    const k = tags.get('k');
    if (k !== undefined && k.toLowerCase() !== 'rsa') continue;
    if (tags.get('p') === publicKey) return 'pass';
  }
  return 'fail';
}
