import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { stdioSecretMask } from '../src/transports/upstream/describe.js';
import { logStderr } from '../src/upstream/stderr.js';
import { recordingLogger } from './support/recording-logger.js';

describe("a spawned server's stderr", () => {
  it('is logged line by line, at most so many lines a second; what is over is counted, not kept', async () => {
    // Found from outside: a server flooding its stderr took the gateway to 2 GB and slowed every upstream.
    const log = recordingLogger();
    const stream = new PassThrough();
    let clock = 0;
    logStderr(stream, log, { perSecond: 3, now: () => clock });
    stream.write('one\ntwo\r\nthree\nfour\nfive\n');
    clock = 1000;
    stream.write('six\n');
    stream.write('seven\neight\nnine\nten\n');
    stream.end('eleven');
    await new Promise((resolve) => stream.once('end', resolve));
    expect(log.entries.map(({ level, message }) => `${level} ${message}`)).toEqual([
      'info one',
      'info two',
      'info three',
      'warn dropped 2 stderr lines of the server (over 3 a second)',
      'info six',
      'info seven',
      'info eight',
      'warn dropped 3 stderr lines of the server (over 3 a second)',
    ]);
    expect(log.entries[0]!.fields).toEqual({ stream: 'stderr' });
    expect(log.entries[3]!.fields).toEqual({ stream: 'stderr', dropped: 2 });
  });

  it('is logged through the mask: a secret split across chunks is masked whole', async () => {
    // Found from outside: the stderr log lines showed a server's env secret that lastError masked.
    const log = recordingLogger();
    const stream = new PassThrough();
    logStderr(stream, log, { mask: stdioSecretMask({ TOKEN: 'SECRET-123' }) });
    stream.write('token SECR');
    stream.write('ET-123 \u001b[31mred\n');
    stream.end();
    await new Promise((resolve) => stream.once('end', resolve));
    expect(log.entries.map(({ message }) => message)).toEqual(['token *** \\u001b[31mred']);
  });
});
