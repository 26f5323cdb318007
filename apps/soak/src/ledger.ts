/**
 * Every request of the run and what became of it: answered with a result (`ok`), answered with a JSON-RPC
 * error or a tool's `isError` (`error`, with its code and `data.reason`), never answered within the client
 * timeout (`lost`), or failed below JSON-RPC (`broken`: the HTTP exchange with the gateway itself failed).
 * Errors are kept with their target upstream and time span, to be judged against the fault timeline.
 */
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';

/** An upstream name, or `*` for a merged listing that fans out to every upstream. */
export type Target = string;
export const ALL = '*';

export type OutcomeKind = 'ok' | 'spoiled' | 'error' | 'wrong' | 'lost' | 'broken';

export interface Tally {
  ok: number;
  /** Requests the misbehaving upstream spoiled, answered with the error the gateway promises for them. */
  spoiled: number;
  error: number;
  /** Answered with a result that is not what was asked for (another resource, tool or prompt). */
  wrong: number;
  lost: number;
  broken: number;
}

export interface FailureRecord {
  target: Target;
  method: string;
  era: 'legacy' | 'modern';
  kind: Exclude<OutcomeKind, 'ok' | 'spoiled'>;
  start: number;
  end: number;
  code?: number;
  reason: string;
  message: string;
}

export interface PartialRecord {
  method: string;
  era: 'legacy' | 'modern';
  start: number;
  end: number;
  unavailable: string[];
}

/** Kept failure records at most (counts stay exact beyond it). */
const MAX_RECORDS = 200_000;
/** Slack over the SDK's own request timeout before a request counts as lost regardless. */
const HARD_TIMEOUT_SLACK_MS = 2_000;

export const emptyTally = (): Tally => ({ ok: 0, spoiled: 0, error: 0, wrong: 0, lost: 0, broken: 0 });

export class Ledger {
  readonly total: Tally = emptyTally();
  readonly byTarget = new Map<Target, Tally>();
  readonly failures: FailureRecord[] = [];
  /**
   * Merged listings answered with `_meta` naming unavailable upstreams: by design not an error, but each
   * upstream left out is judged like an error on it (only an affected upstream may be missing).
   */
  readonly partials: PartialRecord[] = [];
  inFlight = 0;
  readonly #timeoutMs: number;

  constructor(requestTimeoutMs: number) {
    this.#timeoutMs = requestTimeoutMs;
  }

  get requestTimeoutMs(): number {
    return this.#timeoutMs;
  }

  /**
   * Runs one request (given the SDK timeout to pass on) and records its outcome. A result with
   * `isError: true` counts as an error, one that `verify` objects to as wrong. A request the misbehaving
   * upstream spoils (`spoiled`: the `data.reason` promised for it) counts as spoiled when answered with
   * that error, and as wrong when answered otherwise. Resolves with the result, or undefined when there
   * was none; never rejects.
   */
  async track(
    target: Target,
    method: string,
    era: 'legacy' | 'modern',
    run: (timeoutMs: number) => Promise<unknown>,
    verify?: (result: Record<string, unknown>) => string | undefined,
    spoiled?: string,
  ): Promise<Record<string, unknown> | undefined> {
    const start = Date.now();
    this.inFlight += 1;
    let timer: NodeJS.Timeout | undefined;
    const hard = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new SdkError(SdkErrorCode.RequestTimeout, 'no answer (hard timeout)')),
        this.#timeoutMs + HARD_TIMEOUT_SLACK_MS,
      );
    });
    try {
      const result = (await Promise.race([run(this.#timeoutMs), hard])) as Record<string, unknown>;
      const wrong = spoiled
        ? `a spoiled ${method} was answered with a result, not ${spoiled}`
        : result
          ? verify?.(result)
          : 'no result';
      if (result?.isError === true) {
        this.#fail({ target, method, era, kind: 'error', start, reason: 'isError', message: text(result) });
      } else if (wrong !== undefined) {
        this.#fail({ target, method, era, kind: 'wrong', start, reason: 'wrong_answer', message: wrong });
      } else {
        const missing = target === ALL ? unavailableOf(result) : [];
        if (missing.length > 0 && this.partials.length < MAX_RECORDS) {
          this.partials.push({ method, era, start, end: Date.now(), unavailable: missing });
        }
        this.#count(target, 'ok');
      }
      return result;
    } catch (error) {
      const outcome = classify(error);
      if (spoiled !== undefined && outcome.kind === 'error' && outcome.reason === spoiled) {
        this.#count(target, 'spoiled');
      } else if (spoiled !== undefined && outcome.kind === 'error') {
        const message = `a spoiled ${method} was answered with ${outcome.reason}, not ${spoiled}: ${outcome.message}`;
        this.#fail({ target, method, era, start, kind: 'wrong', reason: 'wrong_error', message });
      } else {
        this.#fail({ target, method, era, start, ...outcome });
      }
      return undefined;
    } finally {
      clearTimeout(timer);
      this.inFlight -= 1;
    }
  }

  #fail(record: Omit<FailureRecord, 'end'>): void {
    this.#count(record.target, record.kind);
    if (this.failures.length < MAX_RECORDS) this.failures.push({ ...record, end: Date.now() });
  }

  #count(target: Target, kind: OutcomeKind): void {
    this.total[kind] += 1;
    let tally = this.byTarget.get(target);
    if (!tally) {
      tally = emptyTally();
      this.byTarget.set(target, tally);
    }
    tally[kind] += 1;
  }
}

function classify(error: unknown): Pick<FailureRecord, 'kind' | 'code' | 'reason' | 'message'> {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ProtocolError) {
    const data = error.data as { reason?: unknown } | undefined;
    const reason = typeof data?.reason === 'string' ? data.reason : `code ${error.code}`;
    return { kind: 'error', code: error.code, reason, message };
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return { kind: 'lost', reason: 'no answer', message };
  }
  const code = error instanceof SdkError ? error.code : error instanceof Error ? error.name : 'unknown';
  return { kind: 'broken', reason: String(code), message };
}

/** The upstreams a merged listing says it left out (`_meta['switchyard/unavailable']`). */
function unavailableOf(result: Record<string, unknown> | undefined): string[] {
  const meta = result?._meta as Record<string, unknown> | undefined;
  const names = meta?.['switchyard/unavailable'];
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
}

function text(result: Record<string, unknown>): string {
  const content = result.content as { text?: unknown }[] | undefined;
  const first = content?.[0]?.text;
  return typeof first === 'string' ? first.slice(0, 200) : 'isError';
}
