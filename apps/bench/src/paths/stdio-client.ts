/**
 * The direct client of a stdio upstream: spawns the testkit CLI (`--stdio`), opens one 2025-11-25 session
 * on its stdin/stdout and sends raw JSON-RPC lines (no validation), like raw-client.ts over HTTP.
 */
import type { ManagedProcess } from '@switchyard/testkit/process';
import type { RequestClient } from '../replicas/measure.js';
import { children, testkitCli } from '../services.js';
import { initializeParams, PendingRequests } from './pending.js';

export class StdioClient implements RequestClient {
  readonly proc: ManagedProcess;
  readonly #pending = new PendingRequests();

  private constructor(proc: ManagedProcess) {
    this.proc = proc;
    proc.onLine((line, stream) => {
      if (stream !== 'stdout' || !line.startsWith('{')) return;
      this.#pending.answer(JSON.parse(line) as Record<string, unknown>);
    });
    void proc.exited.then(() => this.#pending.failAll(new Error(`${proc.name} exited`)));
  }

  /** Spawns `node <testkit cli> --stdio <args>` (ready: its `serving … on stdio` line) and initializes. */
  static async start(name: string, args: readonly string[]): Promise<StdioClient> {
    const { proc } = await children.start({
      name,
      args: [testkitCli(), '--stdio', ...args],
      stdin: 'pipe',
      keepChars: 64 * 1024,
      ready: { stream: 'stderr', line: /serving '.*' on stdio/ },
    });
    const client = new StdioClient(proc);
    await client.request({ method: 'initialize', params: initializeParams('bench-paths-stdio') });
    client.#write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return client;
  }

  request(message: { method: string; params?: Record<string, unknown> }): Promise<Record<string, unknown>> {
    const { id, result } = this.#pending.open(message.method);
    this.#write({ jsonrpc: '2.0', id, method: message.method, params: message.params ?? {} });
    return result;
  }

  /** Ends the session (closes stdin: the testkit exits) and waits for the process. */
  async close(): Promise<void> {
    this.proc.child.stdin?.end();
    await this.proc.stop();
  }

  #write(message: unknown): void {
    this.proc.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }
}
