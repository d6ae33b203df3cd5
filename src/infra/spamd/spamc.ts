// A minimal client of SpamAssassin's spamd (the SPAMC/1.5 protocol spamc speaks, documented in
// spamd/PROTOCOL of the SpamAssassin distribution): one connection per message, the SYMBOLS command, and
// the answer's "Spam: True|False ; <score> / <threshold>" header plus the names of the rules that hit.
import { connect } from 'node:net';

export interface SpamVerdict {
  isSpam: boolean;
  score: number;
  threshold: number;
  /** Names of the SpamAssassin rules that matched. */
  tests: string[];
}

export interface SpamdAddress {
  host: string;
  port: number;
}

/** The answer is a header and a report of a few kilobytes; more than this is not spamd. */
const MAX_ANSWER = 1024 * 1024;

/** Sends `message` with one spamd command (SYMBOLS, REPORT) on its own connection; resolves with the answer. */
export function askSpamd(addr: SpamdAddress, command: 'SYMBOLS' | 'REPORT', message: Buffer, timeoutMs: number, encoding: BufferEncoding): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(addr.port, addr.host);
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => socket.destroy(new Error(`spamd did not answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('connect', () => {
      socket.write(`${command} SPAMC/1.5\r\nContent-length: ${message.length}\r\n\r\n`);
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
      if (!hadError) resolve(Buffer.concat(chunks).toString(encoding));
    });
  });
}

export async function checkSpam(addr: SpamdAddress, message: Buffer, timeoutMs = 30_000): Promise<SpamVerdict> {
  return parseSpamdAnswer(await askSpamd(addr, 'SYMBOLS', message, timeoutMs, 'latin1'));
}

/** The verdict header of an answer ("SPAMD/1.1 0 EX_OK\r\nSpam: True ; 1000.0 / 5.0\r\n...") and its body. */
export function parseSpamdHead(text: string): { isSpam: boolean; score: number; threshold: number; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const body = end < 0 ? '' : text.slice(end + 4);
  const [status, ...lines] = head.split('\r\n');
  const st = /^SPAMD\/\d+\.\d+\s+(\d+)\s*(.*)$/.exec(status ?? '');
  if (!st) throw new Error(`spamd answered ${JSON.stringify(text.slice(0, 80))}`);
  if (st[1] !== '0') throw new Error(`spamd refused the message: ${st[1]} ${st[2]}`);
  const spam = lines.map((l) => /^Spam:\s*(True|False|Yes|No)\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/i.exec(l)).find(Boolean);
  if (!spam) throw new Error('spamd answered without a Spam header');
  return { isSpam: /^(true|yes)$/i.test(spam[1]!), score: Number(spam[2]), threshold: Number(spam[3]), body };
}

/** Parses "SPAMD/1.1 0 EX_OK\r\nSpam: True ; 1000.0 / 5.0\r\n...\r\n\r\nRULE_A,RULE_B". */
export function parseSpamdAnswer(text: string): SpamVerdict {
  const { isSpam, score, threshold, body } = parseSpamdHead(text);
  return {
    isSpam,
    score,
    threshold,
    tests: body
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  };
}
