// What an SMTP answer means for one recipient. Pure. The reply code decides the class (RFC 5321 4.2.1):
// 2xx delivered, 4xx transient, 5xx permanent, except 503 "bad sequence of commands", which is our own
// protocol fault and says nothing about the recipient (retried like a transient failure). The bounce type
// of a permanent failure comes from the shared classifier (enhanced status code first, RFC 3463, then the
// text), so that SMTP answers and DSNs land in the same types.
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

export function classifyReply(reply: string): ReplyClass {
  const m = /^\s*([2-5]\d\d)(?:[ -]|$)/.exec(reply);
  const code = m ? Number(m[1]) : 0;
  const sm = /^\s*[2-5]\d\d[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(reply);
  const status = sm ? sm[1] : null;
  if (code >= 200 && code < 300) return { kind: 'delivered', code, status, bounceType: '' };
  if (code === 503) return { kind: 'client-fault', code, status, bounceType: 'Transient' };
  if (code >= 500) {
    const c = classifyStatus({ code, status: status ?? undefined, text: reply });
    return { kind: 'permanent', code, status, bounceType: c.permanent ? c.type : 'Unknown' };
  }
  return { kind: 'transient', code, status, bounceType: 'Transient' };
}
