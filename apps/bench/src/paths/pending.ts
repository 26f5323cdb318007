/** Requests in flight on a message transport (stdio lines, WebSocket frames), answered by JSON-RPC id. */

/** The one protocol revision the bench's stdio and WebSocket clients speak (their upstreams are 2025-only). */
export const LEGACY_VERSION = '2025-11-25';

interface Waiter {
  method: string;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/** Numbers requests and settles each with the response carrying its id; ignores everything else. */
export class PendingRequests {
  readonly #waiting = new Map<number, Waiter>();
  #nextId = 1;

  /** Registers a request; returns its id and the promise of its result (rejected with its JSON-RPC error). */
  open(method: string): { id: number; result: Promise<Record<string, unknown>> } {
    const id = this.#nextId++;
    const result = new Promise<Record<string, unknown>>((resolve, reject) => {
      this.#waiting.set(id, { method, resolve, reject });
    });
    return { id, result };
  }

  /** Settles the request `message` answers, if it is a response to one in flight. */
  answer(message: Record<string, unknown>): void {
    if (typeof message.id !== 'number') return;
    const waiter = this.#waiting.get(message.id);
    if (!waiter || (!('result' in message) && !('error' in message))) return;
    this.#waiting.delete(message.id);
    if (message.error) {
      const error = message.error as { code?: number; message?: string };
      waiter.reject(
        Object.assign(new Error(`${waiter.method}: ${error.message} (${error.code})`), { code: error.code }),
      );
    } else waiter.resolve(message.result as Record<string, unknown>);
  }

  /** Rejects every request in flight (the transport closed). */
  failAll(error: Error): void {
    for (const waiter of this.#waiting.values()) waiter.reject(error);
    this.#waiting.clear();
  }

  get size(): number {
    return this.#waiting.size;
  }
}

/** The 2025-11-25 `initialize` params of the bench's own clients. */
export function initializeParams(clientName: string): Record<string, unknown> {
  return {
    protocolVersion: LEGACY_VERSION,
    capabilities: {},
    clientInfo: { name: clientName, version: '0.0.0' },
  };
}
