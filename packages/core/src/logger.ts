export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** An injected, structured logger. Library code never writes to the console directly. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Plain-text logger writing one line per entry to a stream (stderr by default: stdout may be the protocol). */
export function createLogger(
  options: { level?: LogLevel; scope?: string; write?: (line: string) => void } = {},
): Logger {
  const threshold = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const make = (scope: string): Logger => {
    const log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
      if (ORDER[level] < threshold) return;
      let line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} [${scope}] ${message}`;
      if (fields) {
        for (const [key, value] of Object.entries(fields)) {
          if (value === undefined) continue;
          line += ` ${key}=${typeof value === 'string' ? JSON.stringify(value) : safeJson(value)}`;
        }
      }
      write(`${line}\n`);
    };
    return {
      debug: (m, f) => log('debug', m, f),
      info: (m, f) => log('info', m, f),
      warn: (m, f) => log('warn', m, f),
      error: (m, f) => log('error', m, f),
      child: (child) => make(`${scope}:${child}`),
    };
  };
  return make(options.scope ?? 'switchyard');
}

/** A logger that drops everything (tests, embedding). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};

function safeJson(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
