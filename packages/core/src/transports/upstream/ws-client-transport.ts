import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import WebSocket, { type ClientOptions } from 'ws';
import type { UpstreamCredentials } from '../../upstream/auth/upstream-auth.js';
import { DEFAULT_MAX_MESSAGE_BYTES, KEEP_ALIVE_MS, keepAlive, MCP_WS_SUBPROTOCOL } from '../websocket.js';
import type { InboundFaults, UpstreamClientTransport } from './faults.js';
import { filteredConnection } from './filtered-socket.js';
import { MAX_DROPPED_BYTES, WsMessageFilter } from './ws-message-filter.js';

function noSubprotocol(): Error {
  return new Error(`upstream did not accept the "${MCP_WS_SUBPROTOCOL}" WebSocket subprotocol`);
}

export interface WebSocketClientOptions {
  headers?: Record<string, string>;
  /** Authorize the upgrade request (the gateway's own credentials); a 401 is retried once. */
  credentials?: UpstreamCredentials;
  /** Largest message accepted; default: the guard's limit (`limits.maxResultBytes`), else 16 MiB. */
  maxMessageBytes?: number;
  keepAliveMs?: number;
}

/**
 * MCP over WebSocket to an upstream (`ws://` / `wss://`): subprotocol `mcp`, one JSON-RPC message per
 * text frame, ping/pong keepalive (a peer that misses a pong is dropped), and a message size limit. A
 * message over the limit is dropped as it arrives, before `ws` buffers it (`WsMessageFilter` between the
 * socket and `ws`), and fails only the request it answers; the connection stays. No permessage-deflate is
 * offered: a compressed message's size is known only once inflated.
 */
export class WebSocketClientTransport implements UpstreamClientTransport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  faults?: InboundFaults;
  readonly #url: URL;
  readonly #options: WebSocketClientOptions;
  #socket: WebSocket | undefined;
  #keepAlive: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(url: URL, options: WebSocketClientOptions = {}) {
    this.#url = url;
    this.#options = options;
  }

  async start(): Promise<void> {
    const credentials = this.#options.credentials;
    if (credentials === undefined) {
      await this.#open(undefined);
      return;
    }
    await credentials.authorize(undefined, {
      send: (authorization) => this.#open(authorization),
      status: (status) => status,
      discard: () => {},
    });
  }

  /** Opens the socket; resolves to 101 once it is open, or to 401 when the upgrade was refused that way. */
  #open(authorization: string | undefined): Promise<number> {
    return new Promise((resolve, reject) => {
      let opened = false;
      /** Refused with 401: this socket's close is not the transport's. */
      let refused = false;
      const fail = (error: Error) => {
        if (opened) return;
        opened = true; // settle once
        reject(error);
      };
      const headers = authorization ? { ...this.#options.headers, authorization } : this.#options.headers;
      const filter = (push: (bytes: Buffer) => void) =>
        new WsMessageFilter(
          {
            pass: push,
            oversized: (id, bytes, hasMethod, binary) => {
              if (binary) socket.close(1003, 'MCP messages are text frames');
              else if (this.faults) this.faults.oversized(id, bytes, hasMethod);
              else
                this.onerror?.(new Error(`discarded a WebSocket message of ${bytes} bytes (over the limit)`));
            },
            unbounded: (bytes) => {
              const why =
                `it declared a WebSocket message of ${bytes} bytes, more than the ${MAX_DROPPED_BYTES} ` +
                'a gateway waits to drop';
              if (this.faults?.abandoned) this.faults.abandoned(why);
              else this.onerror?.(new Error(`${why}: connection closed`));
              socket.terminate();
            },
          },
          () => this.#maxBytes(),
        );
      const socket = new WebSocket(this.#url, MCP_WS_SUBPROTOCOL, {
        headers,
        perMessageDeflate: false,
        // The filter holds every message to the live limit before ws sees it; ws's own cap would close.
        maxPayload: 0,
        handshakeTimeout: 30_000,
        createConnection: filteredConnection(
          this.#url.protocol === 'wss:',
          filter,
        ) as unknown as ClientOptions['createConnection'],
      });
      this.#socket = socket;
      socket.once('open', () => {
        if (socket.protocol !== MCP_WS_SUBPROTOCOL) {
          socket.close(1002, 'subprotocol mcp required');
          fail(noSubprotocol());
          return;
        }
        opened = true;
        this.#keepAlive = keepAlive(socket, this.#options.keepAliveMs ?? KEEP_ALIVE_MS);
        resolve(101);
      });
      socket.once('unexpected-response', (_req, res) => {
        if (res.statusCode === 401 && authorization !== undefined && !opened) {
          opened = true; // settled: a retry opens another socket
          refused = true;
          resolve(401);
        } else {
          fail(new Error(`WebSocket upgrade refused: HTTP ${res.statusCode}`));
        }
        res.resume();
        socket.terminate();
      });
      socket.on('message', (data, isBinary) => {
        if (isBinary) {
          socket.close(1003, 'MCP messages are text frames');
          return;
        }
        const text = data.toString();
        let message: JSONRPCMessage;
        try {
          message = JSON.parse(text) as JSONRPCMessage;
        } catch (error) {
          if (this.faults) this.faults.unparsable(text, 'a WebSocket message');
          else this.onerror?.(new Error(`unparsable frame from upstream: ${(error as Error).message}`));
          return;
        }
        this.onmessage?.(message);
      });
      // Before 'open', any error or close fails start(); ws reports a missing subprotocol this way too.
      socket.on('error', (error) => {
        if (!opened) fail(/subprotocol/i.test(error.message) ? noSubprotocol() : error);
        else if (!refused) this.onerror?.(error);
      });
      socket.once('close', (code) => {
        fail(new Error(`WebSocket closed before it opened (code ${code})`));
        if (!refused) this.#finish();
      });
    });
  }

  #maxBytes(): number {
    return this.#options.maxMessageBytes ?? this.faults?.maxBytes() ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const socket = this.#socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) throw new Error('WebSocket is not open');
    await new Promise<void>((resolve, reject) => {
      socket.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    const socket = this.#socket;
    if (socket && socket.readyState === WebSocket.OPEN) socket.close(1000, 'closing');
    else if (socket && socket.readyState === WebSocket.CONNECTING) socket.terminate();
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#keepAlive) clearInterval(this.#keepAlive);
    this.onclose?.();
  }
}
