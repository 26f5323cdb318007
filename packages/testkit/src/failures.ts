/** How an injected failure behaves. */
export type FailureMode = 'error' | 'hang' | 'crash';

/**
 * A failure to inject into the next matching request(s).
 *
 * - `error` answers a JSON-RPC error (`code` default -32603, `message` default 'Injected failure').
 * - `hang` never answers (a `notifications/cancelled` for it is still counted in `stats.cancelled`).
 * - `crash` exits the process with code 1 in CLI mode, or closes every transport in-process.
 */
export interface Failure {
  /** JSON-RPC method the failure applies to (any request method, including `initialize` and `ping`). */
  method: string;
  mode: FailureMode;
  /** How many matching requests fail; default 1. `-1` or `Infinity` means every one. */
  times?: number;
  code?: number;
  message?: string;
  /** Restrict the failure to requests whose `params.uri` equals this. */
  uri?: string;
  /** Restrict the failure to requests whose `params.name` equals this (a `tools/call` or `prompts/get`). */
  name?: string;
}

export const DEFAULT_FAILURE_CODE = -32603;
export const DEFAULT_FAILURE_MESSAGE = 'Injected failure';

const MODES: readonly string[] = ['error', 'hang', 'crash'];

interface Armed {
  failure: Failure;
  remaining: number;
}

/** Validates an untrusted failure description (e.g. from the control API); throws TypeError. */
export function parseFailure(value: unknown): Failure {
  if (typeof value !== 'object' || value === null) throw new TypeError('failure must be an object');
  const v = value as Record<string, unknown>;
  if (typeof v.method !== 'string' || v.method === '') throw new TypeError('failure.method must be a string');
  if (typeof v.mode !== 'string' || !MODES.includes(v.mode)) {
    throw new TypeError(`failure.mode must be one of ${MODES.join(', ')}`);
  }
  const failure: Failure = { method: v.method, mode: v.mode as FailureMode };
  if (v.times !== undefined && v.times !== null) {
    if (typeof v.times !== 'number' || Number.isNaN(v.times))
      throw new TypeError('failure.times must be a number');
    failure.times = v.times;
  }
  if (v.code !== undefined) {
    if (typeof v.code !== 'number' || !Number.isInteger(v.code))
      throw new TypeError('failure.code must be an integer');
    failure.code = v.code;
  }
  if (v.message !== undefined) {
    if (typeof v.message !== 'string') throw new TypeError('failure.message must be a string');
    failure.message = v.message;
  }
  if (v.uri !== undefined) {
    if (typeof v.uri !== 'string') throw new TypeError('failure.uri must be a string');
    failure.uri = v.uri;
  }
  if (v.name !== undefined) {
    if (typeof v.name !== 'string') throw new TypeError('failure.name must be a string');
    failure.name = v.name;
  }
  return failure;
}

/** The queue of armed failures, consumed in the order they were added. */
export class FailureQueue {
  #armed: Armed[] = [];

  add(failure: Failure): void {
    const times = failure.times ?? 1;
    const remaining = times === -1 || times === Number.POSITIVE_INFINITY ? Number.POSITIVE_INFINITY : times;
    if (!(remaining > 0)) return;
    this.#armed.push({ failure: { ...failure }, remaining });
  }

  clear(): void {
    this.#armed = [];
  }

  get size(): number {
    return this.#armed.length;
  }

  /** Consumes and returns the first failure matching this request, if any. */
  take(method: string, uri: unknown, name?: unknown): Failure | undefined {
    const index = this.#armed.findIndex(
      ({ failure }) =>
        failure.method === method &&
        (failure.uri === undefined || failure.uri === uri) &&
        (failure.name === undefined || failure.name === name),
    );
    const armed = this.#armed[index];
    if (armed === undefined) return undefined;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.#armed.splice(index, 1);
    return armed.failure;
  }
}
