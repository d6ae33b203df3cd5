// One message over a raw loopback SMTP connection, cheap for the sending process (one socket write of the
// prepared bytes): for bursts whose receiver is measured, where a mail library's encoding would load the test.
import { connect } from 'node:net';

export interface RawAnswer {
  code: number;
  text: string;
  /** Milliseconds from the end of DATA to the reply. */
  ms: number;
}

/** `message` must use CRLF; lines starting with '.' are stuffed (RFC 5321 4.5.2). */
export function rawSend(port: number, from: string, to: string[], message: string): Promise<RawAnswer> {
  const body = message.replace(/\r\n\./g, '\r\n..');
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.setEncoding('utf8');
    const steps = ['EHLO sender.example', `MAIL FROM:<${from}>`, ...to.map((t) => `RCPT TO:<${t}>`), 'DATA', null, 'QUIT'];
    let buf = '';
    let step = -1;
    let sentAt = 0;
    socket.on('error', reject);
    // Closed before the reply (a killed server may close without an error): never answered.
    socket.on('close', () => reject(new Error('the connection closed before the reply')));
    socket.on('data', (d: string) => {
      buf += d;
      for (;;) {
        const m = /^(?:\d{3}-.*\r\n)*(\d{3}) .*\r\n/.exec(buf);
        if (!m) return;
        buf = buf.slice(m[0].length);
        const code = Number(m[1]);
        if (step === steps.length - 2) {
          // The reply to the message itself.
          resolve({ code, text: m[0].trim(), ms: Date.now() - sentAt });
          socket.end('QUIT\r\n');
          return;
        }
        if (code >= 400) {
          resolve({ code, text: m[0].trim(), ms: 0 });
          socket.destroy();
          return;
        }
        step++;
        const next = steps[step];
        if (next === null) {
          sentAt = Date.now();
          socket.write(`${body}${body.endsWith('\r\n') ? '' : '\r\n'}.\r\n`);
          sentAt = Date.now();
        } else socket.write(`${next}\r\n`);
      }
    });
  });
}

/** A message of `count` tiny attachments (about 145 bytes each: 10,000 make 1.45 MB), the parser's worst case per byte. */
export function manyAttachments(to: string, subject: string, count: number): string {
  const parts: string[] = [
    'From: "Jane Customer" <jane@customer.example>',
    `To: ${to}`,
    `Subject: ${subject}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b"',
    '',
  ];
  for (let i = 0; i < count; i++) {
    // One header line per part: 10,000 parts stay within the parser's MAX_HEADER_BYTES (512 KB).
    parts.push('--b', 'Content-Disposition: attachment', '', `${i}`.padEnd(100, '.'));
  }
  parts.push('--b--', '');
  return parts.join('\r\n');
}
