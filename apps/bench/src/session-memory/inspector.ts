/**
 * A minimal client of a child's V8 inspector (the DevTools protocol over the WebSocket that
 * `node --inspect=127.0.0.1:0` announces on stderr): force a full GC, read `process.memoryUsage()` and take
 * heap snapshots from outside the process, so the gateway under measurement needs no hook of its own.
 * Commands are matched to their answers by id as on any JSON-RPC channel (testkit `PendingRequests`).
 */
import { PendingRequests } from '@switchyard/testkit/mcp';
import WebSocket from 'ws';
import type { HeapSnapshot } from './heap-census.js';

/** `Debugger listening on ws://…` as Node prints it when started with `--inspect`. */
export const INSPECTOR_LINE = /Debugger listening on (ws:\/\/\S+)/;

/** What `process.memoryUsage()` returns in the inspected process, in bytes. */
export interface MemoryUsage {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

export class Inspector {
  readonly #socket: WebSocket;
  readonly #pending = new PendingRequests();
  /** The chunks of the heap snapshot being taken (events, without an id), while one is. */
  #chunks: string[] | undefined;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
      if (message.id !== undefined) this.#pending.answer(message);
      else if (message.method === 'HeapProfiler.addHeapSnapshotChunk') {
        this.#chunks?.push(String((message.params as { chunk?: string } | undefined)?.chunk));
      }
    });
    socket.on('close', () => this.#pending.failAll(new Error('inspector connection closed')));
  }

  /** Connects to the inspector at `url` (the `ws://…` of {@link INSPECTOR_LINE}). */
  static connect(url: string, timeoutMs = 10_000): Promise<Inspector> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { maxPayload: 1024 ** 3, handshakeTimeout: timeoutMs });
      socket.once('open', () => resolve(new Inspector(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends one protocol command and resolves with its result (an error answer rejects). */
  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const { id, result } = this.#pending.open(`inspector ${method}`);
    this.#socket.send(JSON.stringify({ id, method, params }));
    return result;
  }

  /**
   * Full garbage collections until the heap stops shrinking (weak references and finalizers settle), at
   * most 5; `process.memoryUsage()` after the last.
   */
  async settledMemory(): Promise<MemoryUsage> {
    let before = Number.POSITIVE_INFINITY;
    for (let i = 1; ; i++) {
      await this.send('HeapProfiler.collectGarbage');
      const memory = await this.memoryUsage();
      if (memory.heapUsed >= before || i === 5) return memory;
      before = memory.heapUsed;
    }
  }

  /** `process.memoryUsage()` of the inspected process. */
  async memoryUsage(): Promise<MemoryUsage> {
    const reply = await this.send('Runtime.evaluate', {
      expression: 'process.memoryUsage()',
      returnByValue: true,
    });
    const result = reply.result as { value?: MemoryUsage } | undefined;
    if (!result?.value) throw new Error(`process.memoryUsage() gave ${JSON.stringify(reply)}`);
    return result.value;
  }

  /** A heap snapshot (the parsed `.heapsnapshot` JSON), after a GC the profiler does itself. */
  async heapSnapshot(): Promise<HeapSnapshot> {
    this.#chunks = [];
    try {
      await this.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      return JSON.parse(this.#chunks.join('')) as HeapSnapshot;
    } finally {
      this.#chunks = undefined;
    }
  }

  close(): void {
    this.#socket.close();
  }
}
