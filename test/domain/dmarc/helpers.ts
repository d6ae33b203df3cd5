// A DMARC report mailed as the reporters send it: a short text part and the report file attached
// (base64), or the XML as the body itself.
import { readdirSync, readFileSync } from 'node:fs';

const DIR = new URL('../../fixtures/dmarc/', import.meta.url).pathname;

/** The fixture whose name starts with `prefix` (not the XML sources): its file name and bytes. */
export function fixture(prefix: string): { name: string; bytes: Buffer } {
  const name = readdirSync(DIR).find((f) => f.startsWith(prefix) && !f.endsWith('.ts'));
  if (!name) throw new Error(`no fixture ${prefix}`);
  return { name, bytes: readFileSync(DIR + name) };
}

const TYPES: Record<string, string> = { zip: 'application/zip', gz: 'application/gzip', xml: 'text/xml' };

export function reportMail(file: { name: string; bytes: Buffer }, o: { from?: string; to?: string; subject?: string } = {}): string {
  const ext = file.name.slice(file.name.lastIndexOf('.') + 1);
  const b64 = file.bytes.toString('base64').replace(/.{76}/g, '$&\r\n');
  return [
    `From: ${o.from ?? 'noreply-dmarc-support@google.com'}`,
    `To: ${o.to ?? 'dmarc@inbound.bounces.localhost'}`,
    `Subject: ${o.subject ?? `Report domain: example.com Submitter: google.com Report-ID: <${file.name}>`}`,
    'Date: Tue, 26 Nov 2024 10:00:00 +0000',
    `Message-ID: <${Math.random().toString(36).slice(2)}@reporter.example>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'This is an aggregate report from the reporter.',
    '--b1',
    `Content-Type: ${TYPES[ext] ?? 'application/octet-stream'}; name="${file.name}"`,
    'Content-Transfer-Encoding: base64',
    `Content-Disposition: attachment; filename="${file.name}"`,
    '',
    b64,
    '--b1--',
    '',
  ].join('\r\n');
}

/** The XML itself as the message body (text/xml), as some small reporters send it. */
export function xmlBodyMail(xml: string, to = 'dmarc@inbound.bounces.localhost'): string {
  return ['From: dmarc@small.example', `To: ${to}`, 'Subject: Report', 'MIME-Version: 1.0', 'Content-Type: text/xml; charset=utf-8', '', xml, ''].join('\r\n');
}
