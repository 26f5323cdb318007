import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import type WebSocket from 'ws';
import { decodeFrame } from '../../downstream/jsonrpc.js';
import { messageJson } from '../../downstream/message-json.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../../json-depth.js';
import { KEEP_ALIVE_MS, keepAlive } from '../websocket.js';

export interface WebSocketSessionOptions {
  /** Unsent bytes allowed to pile up for a slow client before it is disconnected (default 8 MiB). */
  maxBufferedBytes?: number;
  keepAliveMs?: number;
  /**
   * Levels of arrays and objects one message may nest (`limits.maxJsonDepth`), read for each message; a
   * deeper one is answered with -32600 `too_deep` before it is parsed. Default {@link DEFAULT_MAX_JSON_DEPTH}.
   */
  maxJsonDepth?: () => number;
}

const SLOW_CONSUMER_GRACE_MS = 5_000;

/** Close codes Switchyard uses on its WebSocket listener. */
export const WsCloseCode = {
  Normal: 1000,
  ProtocolError: 1002,
  UnsupportedData: 1003,
  PolicyViolation: 1008,
  TooLarge: 1009,
} as const;

/**
 * One downstream MCP session over a WebSocket: one JSON-RPC message per text frame. Malformed JSON gets
 * a -32700 answer, a malformed envelope or one nested too deep -32600; binary frames close with 1003. A client that does not
 * read (unsent data above `maxBufferedBytes`) is disconnected with 1008 instead of growing memory.
 */
export class WebSocketSessionTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly #socket: WebSocket;
  readonly #maxBuffered: number;
  readonly #keepAliveMs: number;
  readonly #maxJsonDepth: () => number;
  #closed = false;

  constructor(socket: WebSocket, options: WebSocketSessionOptions = {}) {
    this.#socket = socket;
    this.#maxBuffered = options.maxBufferedBytes ?? 8 * 1024 * 1024;
    this.#keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
    this.#maxJsonDepth = options.maxJsonDepth ?? (() => DEFAULT_MAX_JSON_DEPTH);
  }

  async start(): Promise<void> {
    const socket = this.#socket;
    keepAlive(socket, this.#keepAliveMs);
    socket.on('message', (data, isBinary) => {
      if (isBinary) {
        socket.close(WsCloseCode.UnsupportedData, 'MCP messages are JSON text frames');
        return;
      }
      const { messages, errors } = decodeFrame(data.toString(), this.#maxJsonDepth());
      for (const error of errors) void this.send(error as unknown as JSONRPCMessage);
      for (const item of messages) this.onmessage?.(item as JSONRPCMessage);
    });
    socket.on('error', (error) => this.onerror?.(error));
    socket.once('close', () => this.#finish());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const socket = this.#socket;
    if (this.#closed || socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > this.#maxBuffered) {
      // Stop adding to the pile: queue the close frame behind what is already buffered, send nothing
      // more, and cut the connection after a grace period if the client still does not read.
      // The session ends now (its subscriptions are released); the socket lingers only to deliver it.
      socket.close(WsCloseCode.PolicyViolation, 'slow consumer: too much unread data');
      setTimeout(() => socket.terminate(), SLOW_CONSUMER_GRACE_MS).unref();
      this.#finish();
      return;
    }
    socket.send(messageJson(message));
  }

  async close(): Promise<void> {
    if (this.#socket.readyState === this.#socket.OPEN)
      this.#socket.close(WsCloseCode.Normal, 'session closed');
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
