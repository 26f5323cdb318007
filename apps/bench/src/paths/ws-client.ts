/**
 * The direct client of a WebSocket upstream: one 2025-11-25 session over Switchyard's own WebSocket client
 * transport (the one the gateway uses upstream), raw JSON-RPC, no validation.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { WebSocketClientTransport } from '@switchyard/core/listener';
import type { RequestClient } from '../replicas/measure.js';
import { initializeParams, PendingRequests } from './pending.js';

export class WsClient implements RequestClient {
  readonly #transport: WebSocketClientTransport;
  readonly #pending = new PendingRequests();

  private constructor(url: string) {
    this.#transport = new WebSocketClientTransport(new URL(url));
    this.#transport.onmessage = (message) => this.#pending.answer(message as Record<string, unknown>);
    this.#transport.onclose = () => this.#pending.failAll(new Error(`WebSocket to ${url} closed`));
  }

  /** Connects to `url` (subprotocol `mcp`) and initializes a session. */
  static async connect(url: string): Promise<WsClient> {
    const client = new WsClient(url);
    await client.#transport.start();
    await client.request({ method: 'initialize', params: initializeParams('bench-paths-ws') });
    await client.#transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return client;
  }

  request(message: { method: string; params?: Record<string, unknown> }): Promise<Record<string, unknown>> {
    const { id, result } = this.#pending.open(message.method);
    const sent = { jsonrpc: '2.0', id, method: message.method, params: message.params ?? {} };
    return this.#transport.send(sent as JSONRPCMessage).then(() => result);
  }

  async close(): Promise<void> {
    await this.#transport.close();
  }
}
