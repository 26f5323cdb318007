import { isIP, type Socket, type TcpNetConnectOpts, connect as tcpConnect } from 'node:net';
import { Duplex } from 'node:stream';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';

/** What a socket's inbound bytes pass through: it hands on, with `push`, what the reader is to see. */
export interface InboundFilter {
  push(chunk: Buffer): void;
}

/**
 * A connection whose inbound bytes go through a filter before its reader sees them; outbound bytes go
 * straight to the socket. For `ws`'s `createConnection` (it takes any `Duplex`, and calls `setTimeout` and
 * `setNoDelay` when they exist): the HTTP client reads the upgrade response through it, `ws` the frames.
 */
export class FilteredSocket extends Duplex {
  readonly #socket: Socket;

  /** `filter` is made with the function that hands its output on. */
  constructor(socket: Socket, filter: (push: (bytes: Buffer) => void) => InboundFilter) {
    super();
    this.#socket = socket;
    const inbound = filter((bytes) => {
      if (!this.push(bytes)) socket.pause();
    });
    socket.on('data', (chunk: Buffer) => inbound.push(chunk));
    socket.on('end', () => this.push(null));
    socket.on('error', (error) => this.destroy(error));
    // Bytes still unread (a close frame behind a paused reader) are read before this side is destroyed.
    socket.on('close', () => {
      if (this.readableLength === 0) this.destroy();
      else this.once('end', () => this.destroy());
    });
    socket.on('timeout', () => this.emit('timeout'));
  }

  override _read(): void {
    this.#socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#socket.write(chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#socket.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#socket.destroy();
    callback(error);
  }

  setTimeout(ms: number, callback?: () => void): this {
    this.#socket.setTimeout(ms);
    if (callback) this.once('timeout', callback);
    return this;
  }

  setNoDelay(noDelay?: boolean): this {
    this.#socket.setNoDelay(noDelay);
    return this;
  }

  setKeepAlive(enable?: boolean, initialDelay?: number): this {
    this.#socket.setKeepAlive(enable, initialDelay);
    return this;
  }
}

/**
 * The connection `ws` would open for a `ws://` or `wss://` URL (its own `netConnect` / `tlsConnect`), as
 * a `FilteredSocket`.
 */
export function filteredConnection(
  secure: boolean,
  filter: (push: (bytes: Buffer) => void) => InboundFilter,
): (options: TcpNetConnectOpts & ConnectionOptions & { socketPath?: string }) => FilteredSocket {
  return (options) => {
    const socket = secure
      ? tlsConnect({
          ...options,
          path: undefined,
          servername:
            options.servername || options.servername === ''
              ? options.servername
              : isIP(options.host ?? '')
                ? ''
                : options.host,
        })
      : tcpConnect({ ...options, path: options.socketPath } as TcpNetConnectOpts);
    return new FilteredSocket(socket, filter);
  };
}
