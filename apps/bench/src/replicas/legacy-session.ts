/**
 * Legacy (2025-11-25) sessions by plain POSTs: `initialize`, then `notifications/initialized`, keeping
 * the `mcp-session-id`; then requests on that session and a `DELETE` to end it. What the session-memory
 * part and the cross-replica probe need, and nothing more.
 */
import { type Agent, request as httpRequest } from 'node:http';
import { postJson, resultOf } from './post.js';

/** The legacy protocol revision the bench's sessions speak. */
export const LEGACY_VERSION = '2025-11-25';

export class LegacySession {
  readonly id: string;
  readonly #url: URL;
  readonly #agent: Agent;
  #nextId = 2;

  private constructor(url: URL, agent: Agent, id: string) {
    this.#url = url;
    this.#agent = agent;
    this.id = id;
  }

  /** Opens a session at `url` (the handshake, two POSTs) on `agent`. */
  static async open(url: string, agent: Agent, clientName = 'bench-session'): Promise<LegacySession> {
    const target = new URL(url);
    const init = await postJson(target, agent, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: LEGACY_VERSION,
        capabilities: {},
        clientInfo: { name: clientName, version: '0.0.0' },
      },
    });
    resultOf(init, 1, 'initialize');
    const id = init.headers['mcp-session-id'];
    if (typeof id !== 'string') throw new Error(`initialize at ${url}: no mcp-session-id header`);
    const session = new LegacySession(target, agent, id);
    const initialized = await postJson(
      target,
      agent,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      session.#headers(),
    );
    if (initialized.status >= 400) {
      await session.close(); // best effort: the handshake is not finished, the session may still exist
      throw new Error(
        `notifications/initialized: HTTP ${initialized.status} ${initialized.text.slice(0, 200)}`,
      );
    }
    return session;
  }

  /** One request on the session; rejects with its JSON-RPC error or HTTP status (404: session unknown here). */
  async request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const reply = await postJson(
      this.#url,
      this.#agent,
      { jsonrpc: '2.0', id, method, params },
      this.#headers(),
    );
    return resultOf(reply, id, method);
  }

  /** The session as a `RequestClient` (measure.ts): `request({ method, params })`. */
  asClient(): {
    request(message: { method: string; params?: Record<string, unknown> }): Promise<Record<string, unknown>>;
  } {
    return { request: (message) => this.request(message.method, message.params) };
  }

  /** Ends the session (`DELETE`); resolves with the HTTP status (0 on a transport error). */
  close(): Promise<number> {
    return new Promise((resolve) => {
      const req = httpRequest(this.#url, { method: 'DELETE', agent: this.#agent, headers: this.#headers() });
      req.on('response', (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)));
      req.on('error', () => resolve(0));
      req.end();
    });
  }

  #headers(): Record<string, string> {
    return { 'mcp-session-id': this.id, 'mcp-protocol-version': LEGACY_VERSION };
  }
}
