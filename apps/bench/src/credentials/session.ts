/**
 * A legacy (2025-11-25) session that calls as a named client: the replicas benchmark's plain POSTs
 * (replicas/post.ts) with the client's `Authorization: Bearer` on each, keep-alive, no schema validation.
 */
import { Agent, request as httpRequest } from 'node:http';
import { LEGACY_VERSION } from '../replicas/legacy-session.js';
import type { RequestClient } from '../replicas/measure.js';
import { postJson, resultOf } from '../replicas/post.js';

export class BearerSession implements RequestClient {
  readonly #url: URL;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 64 });
  readonly #auth: Record<string, string>;
  #headers: Record<string, string>;
  #nextId = 1;

  private constructor(url: string, token: string) {
    this.#url = new URL(url);
    this.#auth = { authorization: `Bearer ${token}` };
    this.#headers = this.#auth;
  }

  /** Opens a session at `url` as the client whose token is `token`. */
  static async open(url: string, token: string): Promise<BearerSession> {
    const session = new BearerSession(url, token);
    const init = await postJson(
      session.#url,
      session.#agent,
      {
        jsonrpc: '2.0',
        id: session.#nextId++,
        method: 'initialize',
        params: {
          protocolVersion: LEGACY_VERSION,
          capabilities: {},
          clientInfo: { name: 'bench-credentials', version: '0.0.0' },
        },
      },
      session.#auth,
    );
    resultOf(init, 1, 'initialize');
    const id = init.headers['mcp-session-id'];
    if (typeof id !== 'string') throw new Error(`initialize at ${url}: no mcp-session-id header`);
    session.#headers = { ...session.#auth, 'mcp-session-id': id, 'mcp-protocol-version': LEGACY_VERSION };
    const initialized = await postJson(
      session.#url,
      session.#agent,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      session.#headers,
    );
    if (initialized.status >= 400) throw new Error(`notifications/initialized: HTTP ${initialized.status}`);
    return session;
  }

  async request(message: {
    method: string;
    params?: Record<string, unknown>;
  }): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const reply = await postJson(
      this.#url,
      this.#agent,
      { jsonrpc: '2.0', id, method: message.method, params: message.params ?? {} },
      this.#headers,
    );
    return resultOf(reply, id, message.method);
  }

  /** Ends the session (DELETE, best effort) and closes the connections. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      const req = httpRequest(this.#url, { method: 'DELETE', agent: this.#agent, headers: this.#headers });
      req.on('response', (res) => res.resume().on('end', resolve));
      req.on('error', () => resolve());
      req.end();
    });
    this.#agent.destroy();
  }
}
