// Admits work by the bytes it holds in memory, up to a total, first come first served: what a parser holds is a
// few times its input, so bounding the input bytes in work at once bounds the memory of all of them.
export class ByteBudget {
  private used = 0;
  private readonly waiting: Array<{ bytes: number; admit: () => void }> = [];

  constructor(readonly total: number) {}

  /** Runs `fn` once `bytes` fit (a piece larger than the total runs alone). */
  async run<T>(bytes: number, fn: () => Promise<T>): Promise<T> {
    const n = Math.min(Math.max(bytes, 0), this.total);
    if (this.waiting.length === 0 && this.used + n <= this.total) this.used += n;
    else await new Promise<void>((admit) => this.waiting.push({ bytes: n, admit }));
    try {
      return await fn();
    } finally {
      this.used -= n;
      this.admitWaiting();
    }
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0].bytes <= this.total) {
      const w = this.waiting.shift()!;
      this.used += w.bytes;
      w.admit();
    }
  }
}
