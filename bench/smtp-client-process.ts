// The load generator of bench/inbound, run as a child process so that it does not share the measured
// process's event loop: on {port, n, to} it sends n small messages (text, HTML, a 2 KB attachment) over
// nodemailer's pooled SMTP transport (32 connections) and answers {seconds, failed}.
import nodemailer from 'nodemailer';

const attachment = Buffer.alloc(2048, 'attachment data ');

// A failure ends the benchmark process with the error (an unhandled rejection), which the parent reports.
process.on('message', (m: { port: number; n: number; to: string }) => void (async () => {
  const t = nodemailer.createTransport({ pool: true, host: '127.0.0.1', port: m.port, secure: false, ignoreTLS: true, maxConnections: 32, maxMessages: Infinity });
  let next = 0;
  let failed = 0;
  let firstError = '';
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 128 }, async () => {
      while (next < m.n) {
        const i = next++;
        try {
          await t.sendMail({
            from: '"Jane Customer" <jane@customer.example>',
            to: m.to.replace('@', `+ticket-${i}@`),
            subject: `Re: ticket ${i}`,
            text: `Thanks, that fixed it.\n\nOn Mon, 3 Jun 2024 at 10:15, Support <support@acme.example> wrote:\n> Try again ${i}\n`,
            html: `<p>Thanks, that fixed it. ${i}</p>`,
            attachments: [{ filename: 'log.txt', content: attachment }],
          });
        } catch (err) {
          failed++;
          firstError ||= (err as Error).message;
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  t.close();
  process.send!({ seconds, failed, firstError });
})());
process.send!({ ready: true });
