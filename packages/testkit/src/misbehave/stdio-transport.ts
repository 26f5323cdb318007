import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';
import type { MisbehaveMode } from './modes.js';
import { isResponse, ResponseRewriter } from './response-rewriter.js';

/** The banner `stdout-noise` prints before anything else. */
export const NOISE_BANNER = 'Starting misbehaving server v0.0.1...';
/** The line of invalid JSON `stdout-noise` prints before every response. */
export const NOISE_BROKEN_JSON = '{"jsonrpc":';

/** What the wrapper reports into (the server's stats). */
export interface InboundObserver {
  /** A request the wrapper swallowed (`hang-handshake`): it never reaches a server instance. */
  swallowed(method: string, toolName: string | undefined): void;
}

export interface MisbehavingTransportOptions {
  modes: ReadonlySet<MisbehaveMode>;
  observer: InboundObserver;
  /** Writes a raw line to the wire (stdout); without it `stdout-noise` has nothing to write to. */
  writeRaw?: (line: string) => void;
}

type Id = string | number;

function idOf(message: unknown): Id | undefined {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * Wraps a stdio wire transport (under everything else: the SDK's `serveStdio` entry or one 2025 session)
 * and misbehaves at the wire: `hang-handshake` swallows every inbound message; every outbound response
 * goes through the {@link ResponseRewriter}; `stdout-noise` writes a non-JSON line and a line of broken
 * JSON before each response (and the banner once, from {@link writeBanner}).
 */
export class MisbehavingTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;

  readonly #inner: Transport;
  readonly #options: MisbehavingTransportOptions;
  readonly #rewriter: ResponseRewriter;
  /** Method of each inbound request not yet answered (for the noise line). */
  readonly #methods = new Map<Id, string>();

  constructor(inner: Transport, options: MisbehavingTransportOptions) {
    this.#inner = inner;
    this.#options = options;
    this.#rewriter = new ResponseRewriter(options.modes);
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  /** Writes the `stdout-noise` banner (call before the connection starts, so it precedes everything). */
  writeBanner(): void {
    if (this.#noisy) this.#options.writeRaw?.(NOISE_BANNER);
  }

  async start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => {
      if (this.#options.modes.has('hang-handshake')) {
        // Read, counted, never answered: nothing reaches a server instance.
        if ('method' in message && idOf(message) !== undefined) {
          const name = (message.params as { name?: unknown } | undefined)?.name;
          const toolName = message.method === 'tools/call' && typeof name === 'string' ? name : undefined;
          this.#options.observer.swallowed(message.method, toolName);
        }
        return;
      }
      const id = idOf(message);
      if (id !== undefined && 'method' in message) this.#methods.set(id, message.method);
      this.onmessage?.(message, extra);
    };
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => this.onclose?.();
    await this.#inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!isResponse(message)) {
      await this.#inner.send(message, options);
      return;
    }
    const id = idOf(message);
    const method = id === undefined ? undefined : this.#methods.get(id);
    if (id !== undefined) this.#methods.delete(id);
    if (this.#noisy) {
      this.#options.writeRaw?.(`DEBUG: handled ${method ?? 'a request'}`);
      this.#options.writeRaw?.(NOISE_BROKEN_JSON);
    }
    // Every send writes synchronously when called: start them all at once so the group stays contiguous.
    const sends = this.#rewriter
      .rewrite(message)
      .map((out) => this.#inner.send(out as JSONRPCMessage, options));
    await Promise.all(sends);
  }

  async close(): Promise<void> {
    await this.#inner.close();
  }

  get #noisy(): boolean {
    return this.#options.modes.has('stdout-noise') && this.#options.writeRaw !== undefined;
  }
}
