import type { Logger } from '../logger.js';

/** Splits a child's stderr into lines (long unterminated output is flushed in pieces) for the logger. */
export function pipeLines(
  stream: NodeJS.ReadableStream,
  onLine: (line: string) => void,
  onEnd?: () => void,
): void {
  let buffered = '';
  stream.setEncoding?.('utf8');
  stream.on('data', (chunk: string | Buffer) => {
    buffered += chunk.toString();
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      const line = buffered.slice(0, nl).replace(/\r$/, '');
      if (line.length > 0) onLine(line);
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
    }
    if (buffered.length > 16_384) {
      onLine(buffered);
      buffered = '';
    }
  });
  stream.on('end', () => {
    if (buffered.length > 0) onLine(buffered);
    onEnd?.();
  });
  stream.on('error', () => {});
}

/** How many of one upstream's stderr lines are logged per second at most. */
export const STDERR_LINES_PER_SECOND = 100;

/**
 * Logs a spawned server's stderr line by line (info, `stream: "stderr"`), each line through `mask` (its
 * `env` values, control characters: `upstreamSecretMask`), at most `perSecond` lines a
 * second: a server that floods its stderr had the gateway spend its time and memory on writing them (2 GB
 * in seconds, every other upstream slowed). What is over is dropped and counted; the count is logged as a
 * warning when the next second begins, or when the stream ends.
 */
export function logStderr(
  stream: NodeJS.ReadableStream,
  log: Logger,
  {
    mask = (line) => line,
    perSecond = STDERR_LINES_PER_SECOND,
    now = Date.now,
  }: { mask?: (line: string) => string; perSecond?: number; now?: () => number } = {},
): void {
  let windowStart = now();
  let logged = 0;
  let dropped = 0;
  const reportDropped = () => {
    if (dropped === 0) return;
    log.warn(`dropped ${dropped} stderr lines of the server (over ${perSecond} a second)`, {
      stream: 'stderr',
      dropped,
    });
    dropped = 0;
  };
  pipeLines(
    stream,
    (line) => {
      const at = now();
      if (at - windowStart >= 1000) {
        reportDropped();
        windowStart = at;
        logged = 0;
      }
      if (logged >= perSecond) {
        dropped += 1;
        return;
      }
      logged += 1;
      log.info(mask(line), { stream: 'stderr' });
    },
    reportDropped,
  );
}
