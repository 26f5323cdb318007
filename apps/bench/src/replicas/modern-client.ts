/**
 * A sessionless client of the 2026-07-28 (modern) era: every request is one plain JSON-RPC POST with the
 * protocol version, method and name headers and the `_meta` envelope, no handshake and no session, so
 * any replica behind a balancer can answer any request. Like raw-client.ts it validates nothing, so the
 * numbers show the servers' cost rather than the client's.
 */
import { Agent } from 'node:http';
import { postJson, resultOf } from './post.js';

/** The modern protocol revision the bench speaks. */
export const MODERN_VERSION = '2026-07-28';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench-replicas', version: '0.0.0' },
};

/** The request's name header (SEP-2243): the resource URI, tool or prompt name it is about. */
function nameOf(params: Record<string, unknown>): string | undefined {
  for (const key of ['uri', 'name']) if (typeof params[key] === 'string') return params[key] as string;
  return undefined;
}

export class ModernClient {
  readonly url: string;
  readonly #url: URL;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 64 });
  #nextId = 1;

  constructor(url: string) {
    this.url = url;
    this.#url = new URL(url);
  }

  /** Sends one request; resolves with its result, rejects with its JSON-RPC error or HTTP status. */
  async request(
    message: { method: string; params?: Record<string, unknown> },
    _options?: unknown,
  ): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const params = message.params ?? {};
    const name = nameOf(params);
    const reply = await postJson(
      this.#url,
      this.#agent,
      { jsonrpc: '2.0', id, method: message.method, params: { ...params, _meta: ENVELOPE } },
      {
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': message.method,
        ...(name === undefined ? {} : { 'mcp-name': name }),
      },
    );
    return resultOf(reply, id, message.method);
  }

  /** Closes the kept-alive sockets. */
  close(): void {
    this.#agent.destroy();
  }
}
