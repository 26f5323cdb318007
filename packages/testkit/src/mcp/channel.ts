/**
 * Raw MCP clients over a message channel: a child's stdin/stdout (one JSON-RPC message a line) or a
 * WebSocket (subprotocol `mcp`, one message a text frame). One legacy session each, opened by `initialize`
 * and `notifications/initialized`; requests in flight are matched to their answers by id, and all fail
 * at once when the channel closes.
 */
import WebSocket from 'ws';
import type { ManagedProcess } from '../process/types.js';
import { LEGACY_VERSION } from './http.js';
import { type McpRequest, PendingRequests, type RequestClient } from './wire.js';

/** How a channel client sends, and how it is ended. */
interface Channel {
  send(message: unknown): void;
  close(): Promise<unknown>;
}

/** A legacy session over a channel that hands every incoming message to `answer`. */
export class ChannelClient implements RequestClient {
  readonly #pending = new PendingRequests();
  #channel: Channel | undefined;

  /** The session over `proc`'s stdin/stdout (spawned with `stdin: 'pipe'`); `close()` ends stdin, then stops it. */
  static overStdio(proc: ManagedProcess, clientName?: string): Promise<ChannelClient> {
    const client = new ChannelClient();
    proc.onLine((line, stream) => {
      if (stream === 'stdout' && line.startsWith('{')) client.#answer(line);
    });
    void proc.exited.then(() => client.#pending.failAll(new Error(`${proc.name} exited`)));
    client.#channel = {
      send: (message) => proc.child.stdin?.write(`${JSON.stringify(message)}\n`),
      close: async () => {
        proc.child.stdin?.end();
        await proc.stop();
      },
    };
    return client.#initialize(clientName);
  }

  /** Connects to `url` (subprotocol `mcp`, within `timeoutMs`) and opens a session. */
  static async overWebSocket(url: string, clientName?: string, timeoutMs = 10_000): Promise<ChannelClient> {
    const client = new ChannelClient();
    const socket = new WebSocket(url, 'mcp');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new Error(`WebSocket ${url}: not open within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('open', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    socket.on('message', (data) => client.#answer(String(data)));
    socket.on('close', () => client.#pending.failAll(new Error(`WebSocket to ${url} closed`)));
    socket.on('error', () => {}); // a close follows
    client.#channel = {
      send: (message) => socket.send(JSON.stringify(message)),
      close: () =>
        new Promise<void>((resolve) => {
          if (socket.readyState === WebSocket.CLOSED) return resolve();
          socket.once('close', () => resolve());
          socket.close();
          setTimeout(() => socket.terminate(), 2_000).unref();
        }),
    };
    return client.#initialize(clientName);
  }

  request(message: McpRequest): Promise<Record<string, unknown>> {
    const { id, result } = this.#pending.open(message.method);
    this.#channel!.send({ jsonrpc: '2.0', id, method: message.method, params: message.params ?? {} });
    return result;
  }

  close(): Promise<unknown> {
    return this.#channel!.close();
  }

  async #initialize(clientName = 'switchyard-testkit'): Promise<ChannelClient> {
    try {
      await this.request({
        method: 'initialize',
        params: {
          protocolVersion: LEGACY_VERSION,
          capabilities: {},
          clientInfo: { name: clientName, version: '0.0.0' },
        },
      });
    } catch (error) {
      await this.close();
      throw error;
    }
    this.#channel!.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return this;
  }

  #answer(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return; // not JSON-RPC: a log line
    }
    if (message && typeof message === 'object') this.#pending.answer(message as Record<string, unknown>);
  }
}
