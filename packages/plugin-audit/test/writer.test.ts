import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@switchyard/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AuditFileSystem, nodeFileSystem } from '../src/file-system.js';
import { AuditWriter, type AuditWriterOptions } from '../src/writer.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const task of cleanup.splice(0).reverse()) await task();
});

function tempFile(name = 'audit.jsonl'): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-audit-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, name);
}

/** A logger that keeps what it was told (errors are part of the writer's contract). */
function recordingLogger() {
  const errors: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn() {},
    error: (message, fields) => errors.push({ message, fields }),
    child: () => logger,
  };
  return { logger, errors };
}

function openWriter(file: string, options: Partial<AuditWriterOptions> = {}): AuditWriter {
  const writer = new AuditWriter({
    file,
    fsync: 'interval',
    intervalMs: 60_000,
    maxBytes: 0,
    maxFiles: 5,
    logger: recordingLogger().logger,
    ...options,
  });
  cleanup.push(() => writer.close());
  return writer;
}

/** A line of exactly `size` bytes (newline included) carrying sequence number `n`. */
function line(n: number, size = 40): string {
  const head = JSON.stringify({ n, pad: '' });
  return `${JSON.stringify({ n, pad: '.'.repeat(size - head.length - 1) })}\n`;
}

const lines = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => (JSON.parse(l) as { n: number }).n)
    : [];

/** A real file system whose asynchronous fdatasync waits until the test releases it. */
function gatedFs() {
  const pending: Array<() => Promise<void>> = [];
  const fs: AuditFileSystem = {
    ...nodeFileSystem,
    fdatasync: (fd, callback) => {
      pending.push(
        () =>
          new Promise<void>((resolve) =>
            nodeFileSystem.fdatasync(fd, (error) => {
              callback(error);
              resolve();
            }),
          ),
      );
    },
  };
  return {
    fs,
    pending,
    /** Runs the oldest waiting fdatasync and waits until the writer has seen it complete. */
    release: async () => {
      const next = pending.shift();
      if (!next) throw new Error('no fdatasync is waiting');
      await next();
    },
  };
}

const settled = async (promise: Promise<void> | undefined) => {
  let done = false;
  void promise?.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('AuditWriter: append-only lines', () => {
  it('appends to an existing file without touching what is there', async () => {
    const file = tempFile();
    writeFileSync(file, line(0));
    const writer = openWriter(file);
    expect(writer.append(line(1))).toBeUndefined(); // interval: nothing to wait for
    expect(lines(file)).toEqual([0, 1]); // already in the file, before any fdatasync
    await writer.close();
    expect(lines(file)).toEqual([0, 1]);
  });

  it('refuses to start on a file it cannot open, naming the file and what to check', () => {
    const file = join(tempFile(), 'missing-folder', 'audit.jsonl');
    expect(() => openWriter(file)).toThrow(/cannot open the audit file .*missing-folder.*folder exists/);
  });

  it('still writes records that arrive after close (a request finishing during shutdown)', async () => {
    const file = tempFile();
    const writer = openWriter(file);
    writer.append(line(1));
    await writer.close();
    writer.append(line(2));
    expect(lines(file)).toEqual([1, 2]);
  });
});

describe('AuditWriter: rotation', () => {
  it('rotates before a write that would pass maxBytes, never at exactly maxBytes', () => {
    const file = tempFile();
    const writer = openWriter(file, { maxBytes: 120, maxFiles: 3 });
    for (const n of [1, 2, 3]) writer.append(line(n)); // 40 + 40 + 40 = 120: fits exactly
    expect(lines(file)).toEqual([1, 2, 3]);
    expect(existsSync(`${file}.1`)).toBe(false);
    writer.append(line(4)); // 160 > 120: rotate first
    expect(lines(`${file}.1`)).toEqual([1, 2, 3]);
    expect(lines(file)).toEqual([4]);
    expect(writer.size).toBe(40);
  });

  it('writes a record larger than maxBytes alone into a fresh file rather than looping', () => {
    const file = tempFile();
    const writer = openWriter(file, { maxBytes: 50, maxFiles: 3 });
    writer.append(line(1, 80)); // empty file: written even though 80 > 50
    expect(lines(file)).toEqual([1]);
    writer.append(line(2, 30));
    expect(lines(`${file}.1`)).toEqual([1]);
    expect(lines(file)).toEqual([2]);
  });

  it('shifts file.1 → file.2 … and drops what is beyond maxFiles, keeping the newest records in order', () => {
    const file = tempFile();
    const writer = openWriter(file, { maxBytes: 80, maxFiles: 2 }); // two 40-byte lines per file
    for (let n = 1; n <= 9; n++) writer.append(line(n));
    expect(lines(file)).toEqual([9]);
    expect(lines(`${file}.1`)).toEqual([7, 8]);
    expect(lines(`${file}.2`)).toEqual([5, 6]);
    expect(existsSync(`${file}.3`)).toBe(false);
  });

  it('keeps appending to the current file when a rotation fails, and says so', () => {
    const file = tempFile();
    const { logger, errors } = recordingLogger();
    const failing: AuditFileSystem = {
      ...nodeFileSystem,
      renameSync: () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      },
    };
    let failures = 0;
    const writer = openWriter(file, {
      maxBytes: 80,
      fs: failing,
      logger,
      onError: () => {
        failures += 1;
      },
    });
    for (let n = 1; n <= 4; n++) writer.append(line(n));
    expect(lines(file)).toEqual([1, 2, 3, 4]);
    // one attempt at record 3; the next only after another maxBytes
    expect(failures).toBe(1);
    expect(errors[0]?.message).toMatch(/could not rotate/);
    expect(errors[0]?.fields).toMatchObject({ error: 'EACCES' });
  });
});

describe('AuditWriter: write failures', () => {
  it('logs and counts a failed write with the record, and starts the next record on a fresh line', () => {
    const file = tempFile();
    const { logger, errors } = recordingLogger();
    // 'ok' | 'short' (write half, as write(2) may) | 'full' (the disk is full)
    let disk = 'ok';
    const flaky: AuditFileSystem = {
      ...nodeFileSystem,
      writeSync: (fd, buffer, offset, length) => {
        if (disk === 'ok') return nodeFileSystem.writeSync(fd, buffer, offset, length);
        if (disk === 'short') {
          disk = 'full';
          return nodeFileSystem.writeSync(fd, buffer, offset, Math.floor(length / 2));
        }
        disk = 'ok';
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      },
    };
    let failures = 0;
    let written = 0;
    const writer = openWriter(file, {
      fs: flaky,
      logger,
      onError: () => {
        failures += 1;
      },
      onWritten: () => {
        written += 1;
      },
    });
    writer.append(line(1));
    disk = 'short';
    expect(writer.append(line(2))).toBeUndefined();
    writer.append(line(3));
    expect(failures).toBe(1);
    expect(written).toBe(2);
    expect(errors[0]?.fields).toMatchObject({ error: 'ENOSPC', record: line(2).trimEnd() });
    const text = readFileSync(file, 'utf8').split('\n');
    expect(JSON.parse(text[0]!)).toMatchObject({ n: 1 });
    expect(() => JSON.parse(text[1]!)).toThrow(); // the torn half-line
    expect(JSON.parse(text[2]!)).toMatchObject({ n: 3 }); // intact, on its own line
  });
});

describe('AuditWriter: fsync policies', () => {
  it('always: a record resolves only after an fdatasync that covers it, with group commit', async () => {
    const file = tempFile();
    const gate = gatedFs();
    const writer = openWriter(file, { fsync: 'always', fs: gate.fs });
    const first = writer.append(line(1));
    expect(first).toBeInstanceOf(Promise);
    expect(lines(file)).toEqual([1]); // written at once, durable later
    expect(gate.pending).toHaveLength(1);
    expect(await settled(first)).toBe(false);
    // two more while the first fdatasync is in flight: they wait for the next one, together
    const second = writer.append(line(2));
    const third = writer.append(line(3));
    expect(gate.pending).toHaveLength(1);
    await gate.release();
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(false);
    expect(await settled(third)).toBe(false);
    expect(gate.pending).toHaveLength(1); // one fdatasync for both
    await gate.release();
    expect(await settled(second)).toBe(true);
    expect(await settled(third)).toBe(true);
    expect(gate.pending).toHaveLength(0);
  });

  it('always: close waits for the fdatasync in flight and resolves every waiting record', async () => {
    const file = tempFile();
    const gate = gatedFs();
    const writer = openWriter(file, { fsync: 'always', fs: gate.fs });
    const first = writer.append(line(1));
    const second = writer.append(line(2));
    const closed = writer.close();
    expect(await settled(closed)).toBe(false); // the in-flight fdatasync still holds the descriptor
    await gate.release();
    await closed;
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(true);
    expect(lines(file)).toEqual([1, 2]);
  });

  it('always: a rotation makes the old file durable and releases its records', async () => {
    const file = tempFile();
    const gate = gatedFs();
    const writer = openWriter(file, { fsync: 'always', fs: gate.fs, maxBytes: 40 });
    const first = writer.append(line(1));
    const second = writer.append(line(2)); // rotates: fdatasyncSync of file (now file.1)
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(false);
    expect(lines(`${file}.1`)).toEqual([1]);
    await gate.release(); // the first async fdatasync (on the retired descriptor) completes
    await gate.release(); // then one for record 2, on the new file
    expect(await settled(second)).toBe(true);
  });

  it('interval: fdatasyncs every intervalMs when something was written, not otherwise', async () => {
    vi.useFakeTimers();
    const file = tempFile();
    const calls: number[] = [];
    const counting: AuditFileSystem = {
      ...nodeFileSystem,
      fdatasync: (fd, callback) => {
        calls.push(fd);
        callback(null);
      },
    };
    const writer = openWriter(file, { fsync: 'interval', intervalMs: 1000, fs: counting });
    writer.append(line(1));
    writer.append(line(2));
    expect(calls).toHaveLength(0);
    vi.advanceTimersByTime(1000);
    expect(calls).toHaveLength(1); // both lines, one fdatasync
    vi.advanceTimersByTime(5000);
    expect(calls).toHaveLength(1); // nothing new: no fdatasync
    writer.append(line(3));
    vi.advanceTimersByTime(1000);
    expect(calls).toHaveLength(2);
  });
});
