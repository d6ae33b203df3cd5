// Reads SMTP replies off a socket (RFC 5321 4.2): "xyz-text" lines continue a reply, "xyz text" ends it.
// Replies are handed out in the order the commands were sent, which is what pipelining (RFC 2920) relies on.
import { StringDecoder } from 'node:string_decoder';

export interface SmtpReply {
  code: number;
  /** The reply as received, lines joined with "\n" (e.g. "250 2.0.0 Ok: queued"). */
  text: string;
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
        const reply = { code: Number(line.slice(0, 3)) || 0, text: this.lines.join('\n') };
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
