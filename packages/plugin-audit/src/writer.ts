import type { Logger } from '@switchyard/core';
import {
  type AuditFileSystem,
  nodeFileSystem,
  openAppend,
  PartialWriteError,
  shiftRotated,
  syncDirectoryOf,
  writeAll,
} from './file-system.js';
import type { FsyncPolicy } from './options.js';

export interface AuditWriterOptions {
  /** Absolute path of the file to append to. */
  file: string;
  fsync: FsyncPolicy;
  /** fdatasync period of the `interval` policy. */
  intervalMs: number;
  /** Rotation threshold in bytes; 0 = never rotate. */
  maxBytes: number;
  /** Rotated files kept (at least 1). */
  maxFiles: number;
  logger: Logger;
  /** Called for each record written to the file, and each write, fdatasync or rotation that failed. */
  onWritten?: () => void;
  onError?: () => void;
  /** File operations (default: `node:fs`). */
  fs?: AuditFileSystem;
}

interface Waiter {
  seq: number;
  resolve: () => void;
}

/**
 * An append-only JSON Lines file with an fdatasync policy and size-based rotation.
 *
 * Every record is written with a synchronous `write(2)` before `append` returns, so it is in the
 * operating system as soon as the request's response could leave: a crash or `kill -9` of the process
 * loses nothing. What remains is power loss, which the policy bounds:
 * - `interval`: an fdatasync runs every `intervalMs` when something was written since the last one;
 * - `always`: `append` returns a promise that resolves once an fdatasync covering the record is done.
 *   One fdatasync runs at a time, off the event loop; records written while it runs are covered by
 *   the next one (group commit), so a burst of N requests costs about two fdatasyncs, not N.
 *
 * Failures never throw out of `append`: they are logged (with the record, so it still reaches the
 * gateway log) and counted; the request's response goes out regardless.
 */
export class AuditWriter {
  readonly #options: Required<Omit<AuditWriterOptions, 'onWritten' | 'onError'>>;
  readonly #fs: AuditFileSystem;
  readonly #log: Logger;
  readonly #onWritten: () => void;
  readonly #onError: () => void;
  #fd: number;
  #size: number;
  /** The size beyond which the next write rotates (raised after a failed rotation, to not retry per record). */
  #limit: number;
  /** Sequence number of the last record written, and of the last one known to be on disk. */
  #written = 0;
  #durable = 0;
  /** Promise of the fdatasync in flight (one at a time). */
  #syncing: Promise<void> | undefined;
  readonly #waiters: Waiter[] = [];
  /** Rotated-away descriptors still used by the fdatasync in flight; closed once it ends. */
  readonly #retired: number[] = [];
  /** A previous write stopped mid-line: start the next one on a fresh line. */
  #torn = false;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  /** Opens (creating if needed) the file; throws an Error that names the file if it cannot. */
  constructor(options: AuditWriterOptions) {
    this.#fs = options.fs ?? nodeFileSystem;
    this.#options = { ...options, fs: this.#fs };
    this.#log = options.logger;
    this.#onWritten = options.onWritten ?? (() => {});
    this.#onError = options.onError ?? (() => {});
    const { fd, size } = openAppend(this.#fs, options.file);
    syncDirectoryOf(this.#fs, options.file);
    this.#fd = fd;
    this.#size = size;
    this.#limit = options.maxBytes;
    if (options.fsync === 'interval') {
      this.#timer = setInterval(() => this.#startSync(), options.intervalMs);
      this.#timer.unref();
    }
  }

  /** Current size of the active file, in bytes. */
  get size(): number {
    return this.#size;
  }

  /**
   * Appends one line (it must end with `\n`). Under `always`, returns a promise that resolves once the
   * line is fdatasync'ed (or its write failed and was logged); otherwise returns undefined, the line
   * being already written.
   */
  append(line: string): Promise<void> | undefined {
    if (this.#closed) {
      this.#appendAfterClose(line);
      return undefined;
    }
    const data = Buffer.from(this.#torn ? `\n${line}` : line, 'utf8');
    this.#rotateIfFull(data.length);
    try {
      writeAll(this.#fs, this.#fd, data);
    } catch (error) {
      this.#writeFailed(error, line);
      return undefined;
    }
    this.#torn = false;
    this.#size += data.length;
    this.#written += 1;
    this.#onWritten();
    if (this.#options.fsync !== 'always') return undefined;
    const seq = this.#written;
    const durable = new Promise<void>((resolve) => this.#waiters.push({ seq, resolve }));
    this.#startSync();
    return durable;
  }

  /** Waits for the fdatasync in flight, syncs what is left, closes the file. Later appends still land (see README). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    while (this.#syncing) await this.#syncing;
    try {
      this.#fs.fdatasyncSync(this.#fd);
    } catch (error) {
      this.#failed('could not fdatasync the audit file on close', error);
    }
    this.#markDurable(this.#written);
    this.#closeQuietly(this.#fd);
  }

  /** Starts an fdatasync unless one is running or nothing is waiting for one. */
  #startSync(): void {
    if (this.#syncing || this.#closed || this.#durable >= this.#written) return;
    const target = this.#written;
    let done = (): void => {};
    // Set before calling fdatasync: an injected one may call back synchronously.
    this.#syncing = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.#fs.fdatasync(this.#fd, (error) => {
      if (error) this.#failed('could not fdatasync the audit file', error);
      // A failed fdatasync does not hold responses hostage: it is logged and counted instead.
      this.#markDurable(target);
      this.#syncing = undefined;
      for (const fd of this.#retired.splice(0)) this.#closeQuietly(fd);
      done();
      if (this.#options.fsync === 'always') this.#startSync();
    });
  }

  #markDurable(seq: number): void {
    if (seq > this.#durable) this.#durable = seq;
    let done = 0;
    while (done < this.#waiters.length && this.#waiters[done]!.seq <= this.#durable) {
      this.#waiters[done]!.resolve();
      done += 1;
    }
    if (done > 0) this.#waiters.splice(0, done);
  }

  /** Rotates before a write of `bytes` that would take a non-empty file past `maxBytes`. */
  #rotateIfFull(bytes: number): void {
    const { maxBytes, maxFiles, file } = this.#options;
    if (maxBytes === 0 || this.#size === 0 || this.#size + bytes <= this.#limit) return;
    let next: { fd: number; size: number };
    try {
      // The old file is complete and on disk before it takes its rotated name.
      this.#fs.fdatasyncSync(this.#fd);
      shiftRotated(this.#fs, file, maxFiles);
      next = openAppend(this.#fs, file);
    } catch (error) {
      this.#limit = this.#size + maxBytes;
      this.#failed(
        `could not rotate the audit file; still appending to it, next attempt after ${maxBytes} more bytes`,
        error,
      );
      return;
    }
    syncDirectoryOf(this.#fs, file);
    this.#markDurable(this.#written);
    if (this.#syncing) this.#retired.push(this.#fd);
    else this.#closeQuietly(this.#fd);
    this.#fd = next.fd;
    this.#size = next.size;
    this.#limit = maxBytes;
  }

  #writeFailed(error: unknown, line: string): void {
    if (error instanceof PartialWriteError && error.written > 0) this.#torn = true;
    this.#failed('could not write an audit record; it is logged here instead', error, line.trimEnd());
  }

  /** Late records (a request that finished after close): open, append, sync and close for each. */
  #appendAfterClose(line: string): void {
    let fd: number | undefined;
    try {
      fd = openAppend(this.#fs, this.#options.file).fd;
      writeAll(this.#fs, fd, Buffer.from(line, 'utf8'));
      this.#fs.fdatasyncSync(fd);
      this.#onWritten();
    } catch (error) {
      this.#failed(
        'could not write an audit record after close; it is logged here instead',
        error,
        line.trimEnd(),
      );
    } finally {
      if (fd !== undefined) this.#closeQuietly(fd);
    }
  }

  #failed(message: string, error: unknown, record?: string): void {
    this.#onError();
    const e = (error instanceof PartialWriteError ? error.cause : error) as NodeJS.ErrnoException;
    this.#log.error(message, {
      file: this.#options.file,
      error: e?.code ?? e?.message ?? String(error),
      record,
    });
  }

  #closeQuietly(fd: number): void {
    try {
      this.#fs.closeSync(fd);
    } catch (error) {
      this.#log.warn('could not close an audit file descriptor', { error: String(error) });
    }
  }
}
