import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { decodeFrame, parseError } from '../../downstream/jsonrpc.js';
import { messageJson } from '../../downstream/message-json.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../../json-depth.js';

const MAX_LINE_BYTES = 16 * 1024 * 1024;

export interface JsonLineTransportOptions {
  /**
   * Levels of arrays and objects one line may nest (`limits.maxJsonDepth`), read for each line; a deeper
   * line is answered with -32600 `too_deep` before it is parsed. Default {@link DEFAULT_MAX_JSON_DEPTH}.
   */
  maxJsonDepth?: () => number;
}

/**
 * Newline-delimited JSON-RPC over a readable/writable pair. Unlike a bare framing layer it answers
 * malformed lines with -32700/-32600 instead of dropping them, so a stdio client never hangs on bad input.
 */
export class JsonLineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  #pending: string[] = [];
  #pendingChars = 0;
  /** Reading the rest of a line over MAX_LINE_BYTES, already answered: dropped up to its newline. */
  #discarding = false;
  #closed = false;
  readonly #input: NodeJS.ReadableStream;
  readonly #output: NodeJS.WritableStream;
  readonly #maxJsonDepth: () => number;

  constructor(
    input: NodeJS.ReadableStream,
    output: NodeJS.WritableStream,
    options: JsonLineTransportOptions = {},
  ) {
    this.#input = input;
    this.#output = output;
    this.#maxJsonDepth = options.maxJsonDepth ?? (() => DEFAULT_MAX_JSON_DEPTH);
  }

  async start(): Promise<void> {
    this.#input.setEncoding?.('utf8');
    this.#input.on('data', this.#onData);
    this.#input.once('end', () => void this.close());
    this.#input.once('error', (error: Error) => this.onerror?.(error));
  }

  /**
   * The chunks of the line still being read, joined once it ends: appending each chunk to one string and
   * searching it for the newline would copy the whole line per chunk (seconds for a 16 MiB line).
   */
  #onData = (chunk: string | Buffer) => {
    let text = chunk.toString();
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      const end = text.slice(0, nl);
      text = text.slice(nl + 1);
      if (this.#discarding) this.#discarding = false;
      else {
        const line = (this.#pending.length === 0 ? end : this.#pending.join('') + end).replace(/\r$/, '');
        this.#pending = [];
        this.#pendingChars = 0;
        if (line.trim().length > 0) this.#onLine(line);
      }
      nl = text.indexOf('\n');
    }
    if (this.#discarding || text.length === 0) return;
    this.#pending.push(text);
    this.#pendingChars += text.length;
    if (this.#pendingChars > MAX_LINE_BYTES) {
      // The rest of this line is thrown away as it arrives, and the line answered once.
      this.#pending = [];
      this.#pendingChars = 0;
      this.#discarding = true;
      void this.send(parseError(`message exceeds ${MAX_LINE_BYTES} bytes`) as unknown as JSONRPCMessage);
    }
  };

  #onLine(line: string): void {
    const { messages, errors } = decodeFrame(line, this.#maxJsonDepth());
    for (const error of errors) void this.send(error as unknown as JSONRPCMessage);
    for (const item of messages) this.onmessage?.(item as JSONRPCMessage);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.#output.write(`${messageJson(message)}\n`)) resolve();
      else this.#output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#onData);
    this.onclose?.();
  }
}
