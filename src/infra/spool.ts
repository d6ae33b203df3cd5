// Where a message received over SMTP waits until its DATA is complete: in memory up to a small threshold, in a
// temporary file beyond it. A stranger may trickle a message of the whole SIZE limit over each of many
// connections; while it arrives each costs at most the threshold of memory, not the message.
// Bytes past the limit are counted and dropped, so the answer can say how big the message was.
import { randomUUID } from 'node:crypto';
import { mkdtemp, open, readFile, rm, unlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';

/** A private directory (mode 0700) of this process's spool files, removed with everything in it. */
export class SpoolDir {
  private constructor(readonly path: string) {}

  static async create(prefix: string): Promise<SpoolDir> {
    return new SpoolDir(await mkdtemp(join(tmpdir(), `${prefix}-`)));
  }

  /** A spool for one message of at most `maxBytes`, kept in memory up to `memoryBytes`. */
  spool(maxBytes: number, memoryBytes: number): MessageSpool {
    return new MessageSpool(this.path, maxBytes, memoryBytes);
  }

  async remove(): Promise<void> {
    await rm(this.path, { recursive: true, force: true });
  }
}

/** A received message as the parser threads take it: its bytes, or the path of its spool file. */
export interface MessageSource {
  readonly bytes: number;
  /** The whole message on this thread. */
  read(): Promise<Buffer>;
  /** For a worker thread: the spool file's path, or the bytes in a buffer of their own to transfer (moved
   * out of the spool: read() afterwards finds nothing). */
  handOff(): { raw: Uint8Array | null; path: string | null };
  /** As handOff, but the spool keeps its bytes. */
  copy(): { raw: Uint8Array | null; path: string | null };
}

export class MessageSpool extends Writable implements MessageSource {
  /** Bytes written, including those past the limit (dropped). */
  bytes = 0;
  private chunks: Buffer[] = [];
  private kept = 0;
  private file: FileHandle | null = null;
  private filePath: string | null = null;

  constructor(
    private readonly dir: string,
    readonly maxBytes: number,
    private readonly memoryBytes: number,
  ) {
    super();
  }

  get oversized(): boolean {
    return this.bytes > this.maxBytes;
  }

  /** Whether the message went to disk (it is larger than the memory threshold). */
  get spilled(): boolean {
    return this.filePath !== null;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.append(chunk).then(() => cb(), cb);
  }

  private async append(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return;
    if (!this.file && this.kept + chunk.length <= this.memoryBytes) {
      this.chunks.push(chunk);
      this.kept += chunk.length;
      return;
    }
    if (!this.file) {
      this.filePath = join(this.dir, randomUUID());
      this.file = await open(this.filePath, 'wx', 0o600);
      await this.file.appendFile(Buffer.concat(this.chunks));
      this.chunks = [];
      this.kept = 0;
    }
    await this.file.appendFile(chunk);
  }

  override _final(cb: (err?: Error | null) => void): void {
    const f = this.file;
    this.file = null;
    if (!f) return cb();
    f.close().then(() => cb(), cb);
  }

  /** The whole message (call once the spool has finished). */
  async read(): Promise<Buffer> {
    return this.filePath ? readFile(this.filePath) : Buffer.concat(this.chunks);
  }

  handOff(): { raw: Uint8Array | null; path: string | null } {
    const out = this.copy();
    this.chunks = [];
    this.kept = 0;
    return out;
  }

  copy(): { raw: Uint8Array | null; path: string | null } {
    if (this.filePath) return { raw: null, path: this.filePath };
    // Not Buffer.concat: a small result would be a slice of Node's shared pool, which a transfer would detach.
    const raw = new Uint8Array(this.kept);
    let at = 0;
    for (const c of this.chunks) {
      raw.set(c, at);
      at += c.length;
    }
    return { raw, path: null };
  }

  /** Frees the memory and deletes the file; safe to call more than once and after a failure. */
  async discard(): Promise<void> {
    this.chunks = [];
    const f = this.file;
    this.file = null;
    await f?.close().catch(() => undefined);
    const p = this.filePath;
    this.filePath = null;
    if (p) await unlink(p).catch(() => undefined);
  }
}
