// The same throttling reply for many recipients of one destination in a short time: then it was not about
// those recipients but about the destination, and pacing slows it (signals.ts says which replies are
// counted, and under which key). One address retried again and again counts once, so a reply about one
// address never slows the destination. Kept per destination in each worker process's memory (pacer.ts);
// bounded: the last MAX_KEPT deferrals at most.

/** Distinct recipients that must meet the same reply ... */
export const SAME_REPLY_RECIPIENTS = 5;
/** ... within this time for the destination to be slowed. */
export const SAME_REPLY_WINDOW_MS = 60_000;

const MAX_KEPT = 64;

export class SameReplyWindow {
  private seen: Array<{ key: string; recipient: string; at: number }> = [];

  /**
   * Notes that `recipient` was deferred with the reply `key` at `now`; true when that makes
   * SAME_REPLY_RECIPIENTS distinct recipients within the window (the count then starts again).
   */
  note(key: string, recipient: string, now: number): boolean {
    const since = now - SAME_REPLY_WINDOW_MS;
    this.seen = this.seen.filter((e) => e.at > since);
    this.seen.push({ key, recipient: recipient.toLowerCase(), at: now });
    if (this.seen.length > MAX_KEPT) this.seen.shift();
    const recipients = new Set(this.seen.filter((e) => e.key === key).map((e) => e.recipient));
    if (recipients.size < SAME_REPLY_RECIPIENTS) return false;
    this.seen = this.seen.filter((e) => e.key !== key);
    return true;
  }
}
