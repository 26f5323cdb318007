/**
 * Raw MCP clients over Streamable HTTP, both eras, on a keep-alive `node:http` agent (their own, or one
 * shared by several clients): a legacy session (`initialize`, `notifications/initialized`, the
 * `Mcp-Session-Id` on every later request, `DELETE` to end it), and sessionless 2026-07-28 requests
 * (each one POST with the `_meta` envelope and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * headers, so any replica behind a balancer can answer any request).
 */
import { Agent } from 'node:http';
import { deleteRequest, type McpRequest, postJson, type RequestClient, resultOf } from './wire.js';

/** The legacy revision the clients speak unless told otherwise. */
export const LEGACY_VERSION = '2025-11-25';
/** The sessionless revision. */
export const MODERN_VERSION = '2026-07-28';

export interface HttpClientOptions {
  /** A keep-alive agent to share (not destroyed by `close()`); default one of the client's own. */
  agent?: Agent;
  /** `clientInfo.name`; default `switchyard-testkit`. */
  clientName?: string;
  /** Sent on every request, e.g. `authorization`. */
  headers?: Record<string, string>;
  /** Per request; default 30 s. */
  timeoutMs?: number;
}

function ownAgent(options: HttpClientOptions): { agent: Agent; owned: boolean } {
  return options.agent
    ? { agent: options.agent, owned: false }
    : { agent: new Agent({ keepAlive: true, maxSockets: 64 }), owned: true };
}

/** One legacy session over Streamable HTTP. */
export class LegacyHttpClient implements RequestClient {
  readonly url: string;
  readonly sessionId: string;
  readonly protocolVersion: string;
  readonly #url: URL;
  readonly #agent: Agent;
  readonly #ownsAgent: boolean;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number | undefined;
  #nextId = 2;
  #closed: Promise<number> | undefined;

  private constructor(
    url: URL,
    sessionId: string,
    version: string,
    own: { agent: Agent; owned: boolean },
    options: HttpClientOptions,
  ) {
    this.url = url.href;
    this.#url = url;
    this.sessionId = sessionId;
    this.protocolVersion = version;
    this.#agent = own.agent;
    this.#ownsAgent = own.owned;
    this.#timeoutMs = options.timeoutMs;
    this.#headers = {
      ...options.headers,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': version,
    };
  }

  /**
   * Opens a session at `url` (the handshake: two POSTs) in revision `protocolVersion` (default 2025-11-25),
   * declaring `capabilities` (default none).
   */
  static async open(
    url: string,
    options: HttpClientOptions & { protocolVersion?: string; capabilities?: Record<string, unknown> } = {},
  ): Promise<LegacyHttpClient> {
    const target = new URL(url);
    const own = ownAgent(options);
    const { agent } = own;
    try {
      const init = await postJson(
        target,
        agent,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: options.protocolVersion ?? LEGACY_VERSION,
            capabilities: options.capabilities ?? {},
            clientInfo: { name: options.clientName ?? 'switchyard-testkit', version: '0.0.0' },
          },
        },
        options.headers,
        options.timeoutMs,
      );
      const result = resultOf(init, 1, 'initialize');
      const id = init.headers['mcp-session-id'];
      if (typeof id !== 'string') throw new Error(`initialize at ${url}: no mcp-session-id header`);
      const session = new LegacyHttpClient(target, id, String(result.protocolVersion), own, options);
      const initialized = await postJson(
        target,
        agent,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        session.#headers,
        options.timeoutMs,
      );
      if (initialized.status >= 400) {
        await session.close(); // best effort: the handshake is not finished, the session may still exist
        throw new Error(
          `notifications/initialized: HTTP ${initialized.status} ${initialized.text.slice(0, 200)}`,
        );
      }
      return session;
    } catch (error) {
      if (own.owned) agent.destroy();
      throw error;
    }
  }

  /** One request on the session; rejects with its JSON-RPC error or HTTP status (404: session unknown). */
  async request(message: McpRequest): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const body = { jsonrpc: '2.0', id, method: message.method, params: message.params ?? {} };
    const reply = await postJson(this.#url, this.#agent, body, this.#headers, this.#timeoutMs);
    return resultOf(reply, id, message.method);
  }

  /** Ends the session (`DELETE`) once; resolves with its HTTP status (0 on a transport error). */
  close(): Promise<number> {
    this.#closed ??= deleteRequest(this.#url, this.#agent, this.#headers).finally(() => {
      if (this.#ownsAgent) this.#agent.destroy();
    });
    return this.#closed;
  }
}

/** The request's name header (SEP-2243): the resource URI, tool or prompt name it is about. */
function nameOf(params: Record<string, unknown>): string | undefined {
  for (const key of ['uri', 'name']) if (typeof params[key] === 'string') return params[key] as string;
  return undefined;
}

/** Sessionless 2026-07-28 requests: no handshake, nothing to end but the kept-alive sockets. */
export class ModernHttpClient implements RequestClient {
  readonly url: string;
  readonly #url: URL;
  readonly #agent: Agent;
  readonly #owned: boolean;
  readonly #options: HttpClientOptions;
  readonly #envelope: Record<string, unknown>;
  #nextId = 1;

  constructor(url: string, options: HttpClientOptions = {}) {
    this.url = url;
    this.#url = new URL(url);
    const { agent, owned } = ownAgent(options);
    this.#agent = agent;
    this.#owned = owned;
    this.#options = options;
    this.#envelope = {
      'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': {
        name: options.clientName ?? 'switchyard-testkit',
        version: '0.0.0',
      },
    };
  }

  /** Sends one request; resolves with its result, rejects with its JSON-RPC error or HTTP status. */
  async request(message: McpRequest): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const params = message.params ?? {};
    const name = nameOf(params);
    const reply = await postJson(
      this.#url,
      this.#agent,
      { jsonrpc: '2.0', id, method: message.method, params: { ...params, _meta: this.#envelope } },
      {
        ...this.#options.headers,
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': message.method,
        ...(name === undefined ? {} : { 'mcp-name': name }),
      },
      this.#options.timeoutMs,
    );
    return resultOf(reply, id, message.method);
  }

  /** Closes the kept-alive sockets (of its own agent). */
  async close(): Promise<void> {
    if (this.#owned) this.#agent.destroy();
  }
}

/** Runs `task(0 … n-1)`, at most `limit` at a time; rejects with the first failure once all have settled. */
export async function eachLimited(
  n: number,
  limit: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async (): Promise<void> => {
    while (next < n) await task(next++).catch((error: unknown) => failures.push(error));
  };
  await Promise.all(Array.from({ length: Math.min(limit, n) }, worker));
  if (failures.length > 0) throw failures[0];
}

/**
 * Opens `count` legacy sessions at `url`, `parallel` (default 8) at a time, all on `options.agent` when
 * given; `clientName(i)` names each one. On a failure the sessions that did open are ended, and it
 * rejects with the first failure.
 */
export async function openSessions(
  url: string,
  count: number,
  options: Omit<HttpClientOptions, 'clientName'> & {
    parallel?: number;
    clientName?: string | ((i: number) => string);
  } = {},
): Promise<LegacyHttpClient[]> {
  const { parallel = 8, clientName, ...rest } = options;
  const sessions: LegacyHttpClient[] = new Array(count);
  try {
    await eachLimited(count, parallel, async (i) => {
      const name = typeof clientName === 'function' ? clientName(i) : clientName;
      sessions[i] = await LegacyHttpClient.open(url, { ...rest, clientName: name });
    });
  } catch (error) {
    await closeSessions(sessions.filter(Boolean), parallel);
    throw error;
  }
  return sessions;
}

/** Ends `sessions` (`DELETE`), `parallel` at a time; resolves with how many got each HTTP status. */
export async function closeSessions(
  sessions: readonly LegacyHttpClient[],
  parallel = 8,
): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  await eachLimited(sessions.length, parallel, async (i) => {
    const status = String(await sessions[i]!.close());
    statuses[status] = (statuses[status] ?? 0) + 1;
  });
  return statuses;
}
