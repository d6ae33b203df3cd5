// The report files of a received message (RFC 7489 7.2.1.1: the report is a MIME part of the message, its
// filename "receiver!policy-domain!begin!end[!id].xml[.gz]"; Google and Mail.ru send .zip). Reporters label
// them application/zip, application/gzip, application/x-gzip, text/xml, application/octet-stream or
// nothing useful, so a part is taken by its bytes (archive.ts, sniff), its name or its type; a message
// whose report is the body itself (some small reporters send the XML as text/xml) is read too.
import PostalMime from '../../infra/mime/postal-mime.js';
import { sniff } from './archive.js';

export interface ReportFile {
  name: string;
  bytes: Buffer;
}

/** At most this many report files are read from one message (reporters send one). */
export const MAX_FILES = 8;

const REPORT_TYPES = /^(application\/(zip|x-zip-compressed|gzip|x-gzip|xml|octet-stream)|text\/xml)$/;
const REPORT_NAMES = /\.(xml|gz|gzip|zip)$/;

export async function reportFiles(raw: Buffer): Promise<ReportFile[]> {
  const email = await PostalMime.parse(raw, { attachmentEncoding: 'arraybuffer' });
  const files: ReportFile[] = [];
  for (const a of email.attachments) {
    if (files.length >= MAX_FILES) break;
    const bytes = Buffer.from(a.content as ArrayBuffer);
    const name = (a.filename ?? '').slice(0, 255);
    const type = (a.mimeType ?? '').toLowerCase();
    if (sniff(bytes) && (REPORT_TYPES.test(type) || REPORT_NAMES.test(name.toLowerCase()))) files.push({ name, bytes });
  }
  if (files.length === 0 && email.text && email.text.includes('<feedback')) {
    // Only the body as a whole; a report quoted inside prose is not one.
    const body = Buffer.from(email.text.trim(), 'utf8');
    if (sniff(body) === 'xml') files.push({ name: '', bytes: body });
  }
  return files;
}
