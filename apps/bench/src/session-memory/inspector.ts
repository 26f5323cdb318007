/**
 * A minimal client of a child's V8 inspector (the DevTools protocol over the WebSocket that
 * `node --inspect=127.0.0.1:0` announces on stderr): force a full GC, read `process.memoryUsage()` and take
 * heap snapshots from outside the process, so the gateway under measurement needs no hook of its own.
 */
import WebSocket from 'ws';

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

interface Reply {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

export class Inspector {
  readonly #socket: WebSocket;
  readonly #pending = new Map<
    number,
    { resolve(result: Record<string, unknown>): void; reject(error: Error): void }
  >();
  readonly #events = new Map<string, (params: Record<string, unknown>) => void>();
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data: Buffer) => this.#receive(JSON.parse(data.toString('utf8')) as Reply));
    socket.on('close', () => {
      for (const { reject } of this.#pending.values()) reject(new Error('inspector connection closed'));
      this.#pending.clear();
    });
  }

  /** Connects to the inspector at `url` (the `ws://…` of {@link INSPECTOR_LINE}). */
  static connect(url: string, timeoutMs = 10_000): Promise<Inspector> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { maxPayload: 1024 ** 3, handshakeTimeout: timeoutMs });
      socket.once('open', () => resolve(new Inspector(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends one protocol command and resolves with its result. */
  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Full garbage collections until the heap stops shrinking (weak references and finalizers settle). */
  async collectGarbage(): Promise<void> {
    let before = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 5; i++) {
      await this.send('HeapProfiler.collectGarbage');
      const used = (await this.memoryUsage()).heapUsed;
      if (used >= before) return;
      before = used;
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

  /** A heap snapshot (the `.heapsnapshot` JSON text), after a GC the profiler does itself. */
  async heapSnapshot(): Promise<string> {
    const chunks: string[] = [];
    this.#events.set('HeapProfiler.addHeapSnapshotChunk', (params) => chunks.push(String(params.chunk)));
    try {
      await this.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    } finally {
      this.#events.delete('HeapProfiler.addHeapSnapshotChunk');
    }
    return chunks.join('');
  }

  close(): void {
    this.#socket.close();
  }

  #receive(message: Reply): void {
    if (message.id === undefined) {
      if (message.method) this.#events.get(message.method)?.(message.params ?? {});
      return;
    }
    const waiting = this.#pending.get(message.id);
    if (!waiting) return;
    this.#pending.delete(message.id);
    if (message.error) waiting.reject(new Error(`inspector: ${message.error.message}`));
    else waiting.resolve(message.result ?? {});
  }
}
