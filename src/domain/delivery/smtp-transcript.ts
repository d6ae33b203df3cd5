// The dump of a bounce recorded from an SMTP reply during delivery: what a user wants to see there is the
// exchange that refused the message. It is written as a delivery status report (RFC 3464 2.2 and 2.3
// field names) followed by the commands sent and the reply that refused them (RFC 5321 4.1.1).
import type { SendResult } from './transport.js';

type Failed = Extract<SendResult, { ok: false }>;

/** The commands of one transaction up to the refused one (pipelined or not, they go in this order). */
const ORDER = ['MAIL FROM', 'RCPT TO', 'DATA'];

export function smtpTranscript(res: Failed, recipient: string, at: Date, reportingMta: string, note?: string): string {
  const status = res.reply.enhanced;
  const remote = res.server ? `Remote-MTA: dns; ${res.server}${res.ip && res.ip !== res.server ? ` [${res.ip}]` : ''}` : null;
  const lines = [
    `Reporting-MTA: dns; ${reportingMta}`,
    `Arrival-Date: ${at.toUTCString()}`,
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    'Action: failed',
    ...(status ? [`Status: ${status}`] : []),
    ...(remote ? [remote] : []),
    `Diagnostic-Code: smtp; ${res.reply.text.replace(/\r?\n/g, ' ')}`,
    '',
  ];
  if (note) lines.push(note, '');
  const x = res.exchange;
  if (x) {
    const upTo = ORDER.indexOf(x.command);
    const sent = [`MAIL FROM:<${x.from}>`, `RCPT TO:<${x.to}>`, 'DATA'].slice(0, upTo < 0 ? 3 : upTo + 1);
    lines.push(`SMTP exchange with ${res.server}${res.ip ? ` (${res.ip})` : ''}:`);
    for (const c of sent) lines.push(`>>> ${c}`);
    if (x.command === 'DATA' && upTo >= 0) lines.push('<<< 354 (message sent)', '>>> .');
    for (const r of res.reply.text.split(/\r?\n/)) lines.push(`<<< ${r}`);
  } else {
    lines.push(`Last answer${res.server ? ` from ${res.server}` : ''}:`, `<<< ${res.reply.text}`);
  }
  return lines.join('\r\n') + '\r\n';
}
