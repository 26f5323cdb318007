import * as fs from 'node:fs';
import { dirname } from 'node:path';

/**
 * The file operations the audit writer uses: the matching `node:fs` functions by default. Tests may
 * inject their own to observe or delay them (e.g. to see that a response waits for its fdatasync).
 */
export interface AuditFileSystem {
  openSync(path: string, flags: string, mode?: number): number;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  fstatSync(fd: number): { size: number };
  fdatasyncSync(fd: number): void;
  fsyncSync(fd: number): void;
  /** Asynchronous fdatasync (runs on libuv's thread pool, so the event loop keeps serving). */
  fdatasync(fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void;
  closeSync(fd: number): void;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
  existsSync(path: string): boolean;
}

export const nodeFileSystem: AuditFileSystem = {
  openSync: (path, flags, mode) => fs.openSync(path, flags, mode),
  writeSync: (fd, buffer, offset, length) => fs.writeSync(fd, buffer, offset, length),
  fstatSync: (fd) => fs.fstatSync(fd),
  fdatasyncSync: (fd) => fs.fdatasyncSync(fd),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  fdatasync: (fd, callback) => fs.fdatasync(fd, callback),
  closeSync: (fd) => fs.closeSync(fd),
  renameSync: (from, to) => fs.renameSync(from, to),
  unlinkSync: (path) => fs.unlinkSync(path),
  existsSync: (path) => fs.existsSync(path),
};

/** Audit files are readable by their owner only: they name clients and what they read. */
export const FILE_MODE = 0o600;

/** Opens `file` for appending (creating it); the error says which file and what to check. */
export function openAppend(fsys: AuditFileSystem, file: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = fsys.openSync(file, 'a', FILE_MODE);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new Error(
      `cannot open the audit file ${file} for appending (${e.code ?? e.message}): check that its folder exists and is writable`,
      { cause: error },
    );
  }
  try {
    return { fd, size: fsys.fstatSync(fd).size };
  } catch (error) {
    fsys.closeSync(fd);
    throw error;
  }
}

/** Writes all of `data`; returns how many bytes reached the file before an error (rethrown with it). */
export function writeAll(fsys: AuditFileSystem, fd: number, data: Uint8Array): void {
  let offset = 0;
  try {
    while (offset < data.length) offset += fsys.writeSync(fd, data, offset, data.length - offset);
  } catch (error) {
    throw new PartialWriteError(offset, error);
  }
}

/** A write that failed after `written` bytes had reached the file (0: nothing did). */
export class PartialWriteError extends Error {
  override readonly name = 'PartialWriteError';
  readonly written: number;

  constructor(written: number, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.written = written;
  }
}

/**
 * Makes a new or renamed directory entry durable (POSIX wants the folder fsynced for that).
 * Best effort: some platforms (Windows) cannot open a folder for fsync.
 */
export function syncDirectoryOf(fsys: AuditFileSystem, file: string): void {
  let fd: number | undefined;
  try {
    fd = fsys.openSync(dirname(file), 'r');
    fsys.fsyncSync(fd);
  } catch {
    // not supported here: the file's own data is still synced
  } finally {
    if (fd !== undefined) fsys.closeSync(fd);
  }
}

/** The name of rotated file `index` (1 = newest). */
export function rotatedName(file: string, index: number): string {
  return `${file}.${index}`;
}

/**
 * Shifts rotated files up by one, dropping the oldest beyond `maxFiles`: `file.N` is removed,
 * `file.i` becomes `file.i+1`, and `file` becomes `file.1`. Missing files are skipped.
 */
export function shiftRotated(fsys: AuditFileSystem, file: string, maxFiles: number): void {
  const oldest = rotatedName(file, maxFiles);
  if (fsys.existsSync(oldest)) fsys.unlinkSync(oldest);
  for (let i = maxFiles - 1; i >= 1; i--) {
    const from = rotatedName(file, i);
    if (fsys.existsSync(from)) fsys.renameSync(from, rotatedName(file, i + 1));
  }
  if (fsys.existsSync(file)) fsys.renameSync(file, rotatedName(file, 1));
}
