// Reading a received message's DMARC reports: its MIME, each report file's archive and XML, the report model.
// Linear, but a report of 200,000 records is seconds of CPU, sent by anyone to the published address, so
// store.ts runs this on a parser thread (infra/threads) and only stores on the event loop. Its own module so
// that a worker loads the reader and nothing of the storing.
import { createHash } from 'node:crypto';
import { ArchiveError, reportXml } from './archive.js';
import { reportFiles } from './extract.js';
import { ReportError, parseReport, type DmarcReport } from './report.js';

/** A file read: the report, or why it was refused. */
export type Read = { name: string; digest: string; report: DmarcReport } | { name: string; digest: string; refused: string };

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function readFile(name: string, bytes: Buffer): Read {
  const digest = sha256(bytes);
  try {
    return { name, digest, report: parseReport(reportXml(bytes)) };
  } catch (err) {
    if (err instanceof ReportError || err instanceof ArchiveError) return { name, digest, refused: err.message };
    throw err;
  }
}

/** The reads of every report file of the message; a message that is none is one refused read of the whole. */
export async function readReports(raw: Uint8Array): Promise<Read[]> {
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  // A message postal-mime cannot read is refused like a bad file: stored with the reason, answered 250.
  const files = await reportFiles(buf).catch(() => null);
  const whole = (refused: string): Read[] => [{ name: '', digest: sha256(buf), refused }];
  if (files === null) return whole('the message cannot be read as MIME');
  return files.length ? files.map((f) => readFile(f.name, f.bytes)) : whole('the message holds no report file (XML, gzip or zip)');
}
