// What an SMTP answer means for one recipient. Pure. The reply code decides the class (RFC 5321 4.2.1):
// 2xx delivered, 4xx transient, 5xx permanent, except 503 "bad sequence of commands", which is our own
// protocol fault and says nothing about the recipient (retried like a transient failure). The bounce type
// of a permanent failure comes from the shared classifier (enhanced status code first, RFC 3463, then the
// text), so that SMTP answers and DSNs land in the same types.
import { parseReply, type SmtpReply } from '../../infra/smtp-client/replies.js';
import { classifyStatus } from '../bounces/classify.js';

export type ReplyKind = 'delivered' | 'permanent' | 'transient' | 'client-fault';

export interface ReplyClass {
  kind: ReplyKind;
  /** Reply code, 0 when the answer had none (network failure). */
  code: number;
  /** Enhanced status code (RFC 3463) when the reply carried one. */
  status: string | null;
  /** Bounce type (bounces/types.ts) recorded for a permanent failure. */
  bounceType: string;
}

/** One classifier for every SMTP answer: delivery outcomes (outcome.ts) and system mail (system-mail.ts). */
export function classifyReply(answer: SmtpReply | string): ReplyClass {
  const reply = typeof answer === 'string' ? parseReply(answer) : answer;
  const { code, enhanced: status, text } = reply;
  if (code >= 200 && code < 300) return { kind: 'delivered', code, status, bounceType: '' };
  if (code === 503) return { kind: 'client-fault', code, status, bounceType: 'Transient' };
  if (code >= 500) {
    const c = classifyStatus({ code, status: status ?? undefined, text });
    return { kind: 'permanent', code, status, bounceType: c.permanent ? c.type : 'Unknown' };
  }
  return { kind: 'transient', code, status, bounceType: 'Transient' };
}
