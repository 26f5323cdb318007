// What the sweep accepts as an answer, and how it sorts the answers it saw into classes for the report.

/** One case's outcome: its class (for the tally) and, when the gateway misbehaved, what was wrong. */
export interface Verdict {
  outcome: string;
  problem?: string;
}

interface RpcError {
  code?: unknown;
  message?: unknown;
  data?: { reason?: unknown; upstream?: unknown };
}

/** What the server sends on its own beside answers (a notification, a request): not judged as an answer. */
export function isServerMessage(message: unknown): boolean {
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof (message as { method?: unknown }).method === 'string'
  );
}

/** A JSON-RPC response: an error with an integer code and a message, or a result. */
export function isResponse(
  message: unknown,
): message is { id?: unknown; error?: RpcError; result?: unknown } {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as { error?: RpcError; result?: unknown };
  if (m.result !== undefined) return true;
  return Number.isInteger(m.error?.code) && typeof m.error?.message === 'string';
}

/**
 * Why `message` is not an acceptable answer, or undefined: an internal error (-32603) is acceptable only
 * as an upstream's own error passed through (it names the upstream).
 */
export function problemWith(message: unknown): string | undefined {
  if (!isResponse(message)) return `not a JSON-RPC response: ${preview(message)}`;
  const error = message.error;
  if (error?.code === -32603 && error.data?.upstream === undefined)
    return `internal error: ${preview(message)}`;
  return undefined;
}

/** The class of one JSON-RPC answer: its code and reason, or `result`. */
export function classOf(message: unknown): string {
  if (!isResponse(message)) return 'none';
  if (message.error === undefined) return 'result';
  const reason = typeof message.error.data?.reason === 'string' ? ` ${message.error.data.reason}` : '';
  return `${message.error.code as number}${reason}`;
}

export function preview(value: unknown, chars = 300): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > chars ? `${text.slice(0, chars)}… (${text.length} chars)` : text;
}

/** Counts outcomes by class, per wire. */
export class Tally {
  readonly #counts = new Map<string, number>();
  readonly #slowest = new Map<string, number>();
  readonly #time = new Map<string, { cases: number; ms: number }>();
  readonly problems: string[] = [];
  cases = 0;

  add(wire: string, verdict: Verdict, ms: number): void {
    this.cases += 1;
    const key = `${wire.padEnd(6)} ${verdict.outcome}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    this.#slowest.set(key, Math.max(ms, this.#slowest.get(key) ?? 0));
    const time = this.#time.get(wire) ?? { cases: 0, ms: 0 };
    this.#time.set(wire, { cases: time.cases + 1, ms: time.ms + ms });
    if (verdict.problem !== undefined) this.problems.push(`${wire}: ${verdict.problem}`);
  }

  /** The counts (and the slowest case), one line per class, most frequent first within each wire. */
  lines(): string[] {
    return [...this.#counts]
      .sort(([a, x], [b, y]) => a.slice(0, 6).localeCompare(b.slice(0, 6)) || y - x)
      .map(
        ([key, count]) =>
          `${String(count).padStart(7)}  ${key.padEnd(48)} slowest ${Math.round(this.#slowest.get(key) ?? 0)} ms`,
      );
  }

  /** The mean time of one case, per wire. */
  meanMs(): Record<string, number> {
    return Object.fromEntries(
      [...this.#time].map(([wire, t]) => [wire, Math.round((t.ms / t.cases) * 10) / 10]),
    );
  }

  /** Outcomes by the first digit of their HTTP status (or `message` for WebSocket and stdio). */
  summary(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [key, count] of this.#counts) {
      const status = key.slice(7).split(' ')[0] ?? '';
      const klass = /^\d{3}$/.test(status) ? `${status[0]}xx` : 'message';
      out[klass] = (out[klass] ?? 0) + count;
    }
    return out;
  }
}
