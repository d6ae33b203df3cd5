// The From and Subject of a message for postmaster, for the operator's listing; read on a parser thread
// (read-on-thread.ts). A message postal-mime cannot read is listed with both empty and kept all the same.
import PostalMime from '../../infra/mime/postal-mime.js';

export interface Summary {
  from: string;
  subject: string;
}

/** Only the first 64 KB are read: the header section is there in any real message. */
export const SUMMARY_BYTES = 64 * 1024;

export async function summary(raw: Uint8Array): Promise<Summary> {
  try {
    const e = await PostalMime.parse(raw.subarray(0, Math.min(raw.length, SUMMARY_BYTES)));
    const from = e.from && 'address' in e.from ? (e.from.address ?? '') : '';
    return { from: from.slice(0, 500), subject: (e.subject ?? '').slice(0, 500) };
  } catch {
    return { from: '', subject: '' };
  }
}
