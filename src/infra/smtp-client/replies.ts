// Reads SMTP replies off a socket (RFC 5321 4.2): "xyz-text" lines continue a reply, "xyz text" ends it.
// Replies are handed out in the order the commands were sent, which is what pipelining (RFC 2920) relies on.
import { StringDecoder } from 'node:string_decoder';

export interface SmtpReply {
  /** The reply code (RFC 5321 4.2), 0 when the line had none. */
  code: number;
  /** The enhanced status code that follows it (RFC 3463, RFC 2034), e.g. "5.1.1", when the server sent one. */
  enhanced: string | null;
  /** The reply as received, lines joined with "\n" (e.g. "250 2.0.0 Ok: queued"). */
  text: string;
}

const ENHANCED = /^\s*[2-5]\d\d[ -]([245]\.\d{1,3}\.\d{1,3})\b/;

/** The enhanced status code at the start of a reply's text, or null. */
export function enhancedCode(text: string): string | null {
  return ENHANCED.exec(text)?.[1] ?? null;
}

/** A reply held as text (stored, or written by a test): its code and enhanced code read from the text. */
export function parseReply(text: string): SmtpReply {
  const m = /^\s*([2-5]\d\d)(?:[ -]|$)/.exec(text);
  return { code: m ? Number(m[1]) : 0, enhanced: enhancedCode(text), text };
}

/** A reply mailroom writes itself for a failure no server answered (no route, no connection, ...). */
export function localReply(code: number, enhanced: string, detail: string): SmtpReply {
  return { code, enhanced, text: `${code} ${enhanced} ${detail}` };
}

export class ReplyReader {
  private buffer = '';
  private readonly decoder = new StringDecoder('utf8');
  private lines: string[] = [];
  private readonly ready: SmtpReply[] = [];
  private readonly waiting: Array<{ resolve(r: SmtpReply): void; reject(e: Error): void }> = [];
  private failure: Error | null = null;

  /** Feeds received bytes. */
  push(chunk: Buffer): void {
    this.buffer += this.decoder.write(chunk);
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) !== -1) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      this.lines.push(line);
      // A line without the continuation hyphen after the code ends the reply; so does a malformed one.
      if (line[3] !== '-' || !/^\d{3}/.test(line)) {
        const text = this.lines.join('\n');
        const reply = { code: Number(line.slice(0, 3)) || 0, enhanced: enhancedCode(text), text };
        this.lines = [];
        const w = this.waiting.shift();
        if (w) w.resolve(reply);
        else this.ready.push(reply);
      }
    }
  }

  /** The next reply. */
  next(): Promise<SmtpReply> {
    const r = this.ready.shift();
    if (r) return Promise.resolve(r);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** The connection is gone: everyone waiting, and everyone who asks later, gets this error. */
  fail(err: Error): void {
    if (!this.failure) this.failure = err;
    for (const w of this.waiting.splice(0)) w.reject(this.failure);
  }
}
