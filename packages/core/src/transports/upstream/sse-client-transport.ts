import type { IncomingMessage } from 'node:http';
import * as http from 'node:http';
import * as https from 'node:https';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { UpstreamCredentials } from '../../upstream/auth/upstream-auth.js';
import type { InboundFaults, UpstreamClientTransport } from './faults.js';
import { failWithPage, httpFailure, isEventStream, readErrorPage } from './http-wire.js';
import { SseEventReader } from './sse-event-reader.js';

/** Without a guard's limit, an event may be this big. */
const FALLBACK_MAX_EVENT_BYTES = 64 * 1024 * 1024;

/**
 * The client side of the legacy HTTP+SSE transport (2024-11-05) on plain node:http: a GET event stream
 * whose `endpoint` event names where each message is POSTed, the answers arriving as `message` events.
 * Unlike the SDK's (on EventSource):
 * - The stream is read with bounded memory (`SseEventReader`): an event over `limits.maxResultBytes` is
 *   discarded as it arrives and fails only the request it answers.
 * - The stream's end is the connection's end (`onclose`). EventSource would reconnect by itself, to a new
 *   server session nobody initialized, or, after one refused reconnect, give up without a close, the
 *   upstream looking connected forever. The gateway reconnects instead, with backoff and a new handshake
 *   (DESIGN §11).
 * - The URL's userinfo goes as HTTP Basic authorization (as node:http sends it on Streamable HTTP and `ws`
 *   on a WebSocket upgrade) unless a configured `Authorization` header replaces it; never in a URL.
 * - An HTTP error page answering one request's POST (a 500 from the server or a proxy) fails that request
 *   alone (DESIGN §11).
 * With `credentials`, the stream and every POST carry the gateway's own `Authorization`, and a 401 is
 * retried once with a fresh token.
 */
export class SseClientTransport implements UpstreamClientTransport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  faults?: InboundFaults;
  /** The stream's URL, without userinfo. */
  readonly #url: URL;
  readonly #headers: Record<string, string>;
  readonly #credentials: UpstreamCredentials | undefined;
  readonly #agent: http.Agent;
  readonly #request: typeof http.request;
  #protocolVersion: string | undefined;
  /** The event stream's request, once sent. */
  #stream: http.ClientRequest | undefined;
  /** Where messages are POSTed: the stream's `endpoint` event. */
  #endpoint: URL | undefined;
  /** Settles `start` (with the endpoint, or the stream's failure before it). */
  #opening: { resolve: () => void; reject: (error: Error) => void } | undefined;
  #started = false;
  #closed = false;

  constructor(url: URL, headers: Record<string, string> = {}, credentials?: UpstreamCredentials) {
    this.#url = withoutUserinfo(url);
    const configured = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
    this.#headers =
      url.username || url.password ? { ...basicAuthorization(url, configured), ...headers } : headers;
    this.#credentials = credentials;
    const secure = url.protocol === 'https:';
    this.#request = secure ? https.request : http.request;
    this.#agent = new (secure ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: 256 });
  }

  /** Opens the event stream; resolves once it named the endpoint. */
  start(): Promise<void> {
    if (this.#started) throw new Error('SseClientTransport already started');
    this.#started = true;
    return new Promise((resolve, reject) => {
      this.#opening = { resolve, reject };
      this.#authorized((authorization) => this.#get(authorization)).then(
        (res) => this.#read(res),
        (error: Error) => this.#end(error),
      );
    });
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error('transport closed');
    const endpoint = this.#endpoint;
    if (endpoint === undefined) throw new SdkError(SdkErrorCode.NotConnected, 'Not connected');
    const body = JSON.stringify(message);
    const res = await this.#authorized((authorization) => this.#post(endpoint, body, authorization));
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) {
      res.resume();
      return;
    }
    failWithPage(message, res, await readErrorPage(res), this.faults);
  }

  async close(): Promise<void> {
    this.#end(new Error('transport closed'));
  }

  /** Ends the transport: the stream ended, failed or was refused, or it was closed. */
  #end(error: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stream?.destroy();
    this.#agent.destroy();
    const opening = this.#opening;
    this.#opening = undefined;
    opening?.reject(error);
    this.onclose?.();
  }

  #read(res: IncomingMessage): void {
    const status = res.statusCode ?? 0;
    if (status !== 200 || !isEventStream(res)) {
      void readErrorPage(res).then((page) => {
        const why =
          status === 200
            ? `its content-type is ${res.headers['content-type'] ?? 'missing'}, not text/event-stream`
            : httpFailure(status, res.statusMessage, page);
        this.#end(new Error(`the SSE stream was refused: ${why}`));
      });
      return;
    }
    const reader = new SseEventReader(
      {
        event: (type, data) => this.#event(type, data),
        oversized: (id, bytes, hasMethod) => {
          if (this.faults) this.faults.oversized(id, bytes, hasMethod);
          else this.onerror?.(new Error(`dropped an upstream SSE event of ${bytes} bytes (over the limit)`));
        },
      },
      () => this.faults?.maxBytes() ?? FALLBACK_MAX_EVENT_BYTES,
    );
    res.on('data', (chunk: Buffer) => {
      if (!this.#closed) reader.push(chunk);
    });
    const ended = () => {
      reader.clear();
      if (this.#closed) return;
      const error = new Error(
        this.#endpoint === undefined
          ? 'the upstream ended its SSE stream before naming its endpoint'
          : 'the upstream ended its SSE stream',
      );
      if (this.#endpoint !== undefined) this.onerror?.(error);
      this.#end(error);
    };
    res.once('end', ended);
    res.once('error', ended);
    res.once('close', ended);
  }

  #event(type: string, data: string): void {
    if (type === 'endpoint') {
      this.#endpointEvent(data);
      return;
    }
    if (type !== 'message') return;
    let message: JSONRPCMessage;
    try {
      message = JSON.parse(data) as JSONRPCMessage;
    } catch (error) {
      if (this.faults) this.faults.unparsable(data, 'an SSE event');
      else this.onerror?.(new Error(`unparsable SSE event from upstream: ${(error as Error).message}`));
      return;
    }
    this.onmessage?.(message);
  }

  /** The stream names where messages go: the same origin as the stream (as the SDK requires). */
  #endpointEvent(data: string): void {
    if (this.#endpoint !== undefined) return;
    let endpoint: URL;
    try {
      endpoint = withoutUserinfo(new URL(data.trim(), this.#url));
    } catch {
      this.#end(new Error('the upstream named an invalid endpoint in its SSE stream'));
      return;
    }
    if (endpoint.origin !== this.#url.origin) {
      this.#end(new Error(`the upstream's endpoint origin ${endpoint.origin} is not the SSE stream's`));
      return;
    }
    this.#endpoint = endpoint;
    const opening = this.#opening;
    this.#opening = undefined;
    opening?.resolve();
  }

  /** Sends with the gateway's own credentials (none configured: as is); a 401 is retried once. */
  #authorized(
    send: (authorization?: { authorization: string }) => Promise<IncomingMessage>,
  ): Promise<IncomingMessage> {
    if (this.#credentials === undefined) return send();
    return this.#credentials.authorize(undefined, {
      send: (authorization) => send({ authorization }),
      status: (res) => res.statusCode ?? 0,
      discard: (res) => res.resume(),
    });
  }

  #get(authorization?: { authorization: string }): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      if (this.#closed) throw new Error('transport closed');
      const headers = { ...this.#headers, ...authorization, accept: 'text/event-stream' };
      const req = this.#request(this.#url, { method: 'GET', agent: this.#agent, headers });
      this.#stream = req;
      req.once('response', resolve);
      req.once('error', reject);
      req.end();
    });
  }

  #post(endpoint: URL, body: string, authorization?: { authorization: string }): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      if (this.#closed) throw new Error('transport closed');
      const headers: Record<string, string | number> = {
        ...this.#headers,
        ...authorization,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      };
      if (this.#protocolVersion !== undefined) headers['mcp-protocol-version'] = this.#protocolVersion;
      const req = this.#request(endpoint, { method: 'POST', agent: this.#agent, headers });
      req.once('response', resolve);
      req.once('error', reject);
      req.end(body);
    });
  }
}

function withoutUserinfo(url: URL): URL {
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  return bare;
}

/** The URL's userinfo as a Basic `Authorization` header, unless one is configured (it wins, as on node:http). */
function basicAuthorization(url: URL, configured: boolean): Record<string, string> {
  if (configured) return {};
  const userinfo = `${decoded(url.username)}:${decoded(url.password)}`;
  return { authorization: `Basic ${Buffer.from(userinfo).toString('base64')}` };
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray `%`: taken as written
  }
}
