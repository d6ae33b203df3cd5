// spamd's REPORT command (SPAMC/1.5, spamd/PROTOCOL of the SpamAssassin distribution): the verdict header as for
// SYMBOLS (spamc.ts) plus the report body, whose "Content analysis details" table lists each rule that hit
// with its points and description ("pts rule name description", continuation lines indented). The message
// checks show it (Mailpit's sa-check).
import { connect } from 'node:net';
import type { SpamdAddress } from './spamc.js';

export interface SpamReport {
  isSpam: boolean;
  score: number;
  threshold: number;
  rules: Array<{ points: number; name: string; description: string }>;
}

/** The answer is a header and a report of a few kilobytes; more than this is not spamd. */
const MAX_ANSWER = 1024 * 1024;

export function reportSpam(addr: SpamdAddress, message: Buffer, timeoutMs = 30_000): Promise<SpamReport> {
  return new Promise((resolve, reject) => {
    const socket = connect(addr.port, addr.host);
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => socket.destroy(new Error(`spamd did not answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('connect', () => {
      socket.write(`REPORT SPAMC/1.5\r\nContent-length: ${message.length}\r\n\r\n`);
      socket.end(message);
    });
    socket.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_ANSWER) socket.destroy(new Error('spamd answered more than 1 MB'));
      else chunks.push(c);
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', (hadError) => {
      clearTimeout(timer);
      if (hadError) return;
      try {
        resolve(parseReport(Buffer.concat(chunks).toString('utf8')));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/** Parses "SPAMD/1.1 0 EX_OK\r\nSpam: False ; 2.1 / 5.0\r\n\r\n<report>". */
export function parseReport(text: string): SpamReport {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const body = end < 0 ? '' : text.slice(end + 4);
  const [status, ...lines] = head.split('\r\n');
  const st = /^SPAMD\/\d+\.\d+\s+(\d+)\s*(.*)$/.exec(status ?? '');
  if (!st) throw new Error(`spamd answered ${JSON.stringify(text.slice(0, 80))}`);
  if (st[1] !== '0') throw new Error(`spamd refused the message: ${st[1]} ${st[2]}`);
  const spam = lines.map((l) => /^Spam:\s*(True|False|Yes|No)\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/i.exec(l)).find(Boolean);
  if (!spam) throw new Error('spamd answered without a Spam header');
  return { isSpam: /^(true|yes)$/i.test(spam[1]), score: Number(spam[2]), threshold: Number(spam[3]), rules: reportRules(body) };
}

/** The rows of the table after "Content analysis details"; a line that starts with spaces continues a description. */
export function reportRules(report: string): SpamReport['rules'] {
  const rules: SpamReport['rules'] = [];
  let inTable = false;
  for (const raw of report.split(/\r?\n/)) {
    if (!inTable) {
      if (raw.startsWith('Content analysis details')) inTable = true;
      continue;
    }
    const line = raw.trimEnd();
    if (!line.trim() || /^\s*pts\s+rule/.test(line) || /^-{3,}/.test(line)) continue;
    const row = /^\s?(-?\d+(?:\.\d+)?)\s+([A-Za-z0-9_]+)\s*(.*)$/.exec(line);
    if (row) rules.push({ points: Number(row[1]), name: row[2]!, description: row[3]!.trim() });
    else if (/^\s{2,}\S/.test(line) && rules.length) rules[rules.length - 1]!.description += ` ${line.trim()}`;
  }
  return rules;
}
