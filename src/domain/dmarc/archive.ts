// The compressed forms of a DMARC aggregate report (RFC 7489 7.2.1.1: "the aggregate data MUST be an XML file
// that SHOULD be subjected to GZIP compression"; in practice Google and Mail.ru send zip, Microsoft, Yahoo and
// most others gzip). Decompression is bounded: node:zlib stops at `maxOutputLength`, so a zip or gzip bomb
// costs at most MAX_XML_BYTES of memory and is refused with a reason. The zip reader reads the central
// directory (APPNOTE.TXT 4.3.12, 4.3.16) and inflates one stored or deflated entry with inflateRaw; encrypted
// entries, ZIP64 and multi-disk archives are refused (no reporter sends them).
import { gunzipSync, inflateRawSync } from 'node:zlib';

export class ArchiveError extends Error {}

/** The largest report XML taken in: Google's biggest daily reports are a few MB of XML. */
export const MAX_XML_BYTES = 32 * 1024 * 1024;
const MAX_ZIP_ENTRIES = 16;

export type ReportFormat = 'xml' | 'gzip' | 'zip';

/** What the bytes are, by their magic numbers (names and content types are often wrong). */
export function sniff(bytes: Buffer): ReportFormat | null {
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return 'gzip';
  if (bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50) return 'zip';
  // XML: optional BOM and whitespace, then '<'.
  let i = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && i < 1024 && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  return bytes[i] === 0x3c ? 'xml' : null;
}

function bounded(fn: () => Buffer, what: string, limit: number): Buffer {
  try {
    return fn();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw new ArchiveError(`the ${what} expands beyond ${limit} bytes`);
    throw new ArchiveError(`the ${what} is damaged: ${(err as Error).message}`);
  }
}

export function gunzip(bytes: Buffer, limit = MAX_XML_BYTES): Buffer {
  return bounded(() => gunzipSync(bytes, { maxOutputLength: limit }), 'gzip file', limit);
}

/** The XML entry of a zip archive (the only entry, or the first named *.xml). */
export function unzip(bytes: Buffer, limit = MAX_XML_BYTES): Buffer {
  // End of central directory: 22 bytes plus a comment of up to 65535 bytes, at the end.
  let eocd = -1;
  for (let i = bytes.length - 22; i >= 0 && i >= bytes.length - 22 - 0xffff; i--) {
    if (bytes.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ArchiveError('the zip file has no central directory');
  const entries = bytes.readUInt16LE(eocd + 10);
  const cdOffset = bytes.readUInt32LE(eocd + 16);
  if (bytes.readUInt16LE(eocd + 4) !== 0 || cdOffset === 0xffffffff) throw new ArchiveError('multi-disk and ZIP64 archives are not read');
  if (entries === 0) throw new ArchiveError('the zip file is empty');
  if (entries > MAX_ZIP_ENTRIES) throw new ArchiveError(`the zip file has ${entries} entries; a report has one`);
  let p = cdOffset;
  let pick: { flags: number; method: number; csize: number; usize: number; local: number; name: string } | null = null;
  for (let n = 0; n < entries; n++) {
    if (p + 46 > bytes.length || bytes.readUInt32LE(p) !== 0x02014b50) throw new ArchiveError('the zip central directory is damaged');
    const nameLen = bytes.readUInt16LE(p + 28);
    const e = {
      flags: bytes.readUInt16LE(p + 8),
      method: bytes.readUInt16LE(p + 10),
      csize: bytes.readUInt32LE(p + 20),
      usize: bytes.readUInt32LE(p + 24),
      local: bytes.readUInt32LE(p + 42),
      name: bytes.subarray(p + 46, p + 46 + nameLen).toString('latin1'),
    };
    if (!e.name.endsWith('/') && (!pick || (!pick.name.toLowerCase().endsWith('.xml') && e.name.toLowerCase().endsWith('.xml')))) pick = e;
    p += 46 + nameLen + bytes.readUInt16LE(p + 30) + bytes.readUInt16LE(p + 32);
  }
  if (!pick) throw new ArchiveError('the zip file holds no file');
  if (pick.flags & 1) throw new ArchiveError('the zip entry is encrypted');
  if (pick.usize > limit) throw new ArchiveError(`the zip entry expands to ${pick.usize} bytes, beyond ${limit}`);
  const lh = pick.local;
  if (lh + 30 > bytes.length || bytes.readUInt32LE(lh) !== 0x04034b50) throw new ArchiveError('the zip local header is damaged');
  const start = lh + 30 + bytes.readUInt16LE(lh + 26) + bytes.readUInt16LE(lh + 28);
  if (start + pick.csize > bytes.length) throw new ArchiveError('the zip file is truncated');
  const data = bytes.subarray(start, start + pick.csize);
  if (pick.method === 0) return Buffer.from(data);
  if (pick.method !== 8) throw new ArchiveError(`the zip entry uses compression method ${pick.method}; only deflate is read`);
  // The directory's size is a claim; the bound holds whatever the stream turns out to be.
  return bounded(() => inflateRawSync(data, { maxOutputLength: limit }), 'zip entry', limit);
}

/** The report XML of a file in any of the three forms, as text (UTF-8; a BOM is kept for the reader). */
export function reportXml(bytes: Buffer, limit = MAX_XML_BYTES): string {
  const format = sniff(bytes);
  // One level only: what a gzip or zip holds must be the XML itself.
  if (format === 'gzip' || format === 'zip') {
    const inner = format === 'gzip' ? gunzip(bytes, limit) : unzip(bytes, limit);
    if (sniff(inner) !== 'xml') throw new ArchiveError(`the ${format} file does not hold XML`);
    return inner.toString('utf8');
  }
  if (format === 'xml') {
    if (bytes.length > limit) throw new ArchiveError(`the report is larger than ${limit} bytes`);
    return bytes.toString('utf8');
  }
  throw new ArchiveError('not a report: neither XML, gzip nor zip');
}
