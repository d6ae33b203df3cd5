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

export function checkSpam(addr: SpamdAddress, message: Buffer, timeoutMs = 30_000): Promise<SpamVerdict> {
  return new Promise((resolve, reject) => {
    const socket = connect(addr.port, addr.host);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error(`spamd did not answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('connect', () => {
      socket.write(`SYMBOLS SPAMC/1.5\r\nContent-length: ${message.length}\r\n\r\n`);
      socket.end(message);
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseSpamdAnswer(Buffer.concat(chunks).toString('latin1')));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/** Parses "SPAMD/1.1 0 EX_OK\r\nSpam: True ; 1000.0 / 5.0\r\n...\r\n\r\nRULE_A,RULE_B". */
export function parseSpamdAnswer(text: string): SpamVerdict {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const body = end < 0 ? '' : text.slice(end + 4);
  const [status, ...lines] = head.split('\r\n');
  const st = /^SPAMD\/\d+\.\d+\s+(\d+)\s*(.*)$/.exec(status ?? '');
  if (!st) throw new Error(`spamd answered ${JSON.stringify(text.slice(0, 80))}`);
  if (st[1] !== '0') throw new Error(`spamd refused the message: ${st[1]} ${st[2]}`);
  const spam = lines.map((l) => /^Spam:\s*(True|False|Yes|No)\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/i.exec(l)).find(Boolean);
  if (!spam) throw new Error('spamd answered without a Spam header');
  return {
    isSpam: /^(true|yes)$/i.test(spam[1]),
    score: Number(spam[2]),
    threshold: Number(spam[3]),
    tests: body
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  };
}
