import type { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { ResourceCatalog } from './catalog.js';
import { type Failure, FailureQueue, parseFailure } from './failures.js';
import { type HttpListener, type HttpListenOptions, type HttpTestServer, startHttpListener } from './http.js';
import { type ResolvedTestServerOptions, resolveOptions, type TestServerOptions } from './options.js';
import { type SessionHost, TestkitServer } from './server.js';
import { createStats, type TestServerStats } from './stats.js';

function nonNegativeInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${what} must be a non-negative integer`);
  return value;
}

/**
 * A programmable upstream MCP server for tests and benchmarks. Its state (resources, failures, latency,
 * stats) is shared by every session it serves, whether over HTTP ({@link listenHttp}), stdio
 * ({@link serveStdio}) or any transport a test connects {@link createServer}'s result to.
 *
 * @example
 * const upstream = new TestServer({ name: 'docs', resources: 25, pageSize: 10 });
 * const http = await upstream.listenHttp();
 * upstream.failNext({ method: 'resources/read', mode: 'error', code: -32000 });
 * await upstream.triggerUpdated('test://docs/r/3');
 * await upstream.close();
 */
export class TestServer {
  /** The resolved options; `setLatency` and `setResourceCount` update `latencyMs` and `resources` live. */
  readonly options: ResolvedTestServerOptions;
  /** Live counters (the same object is updated in place). */
  readonly stats: TestServerStats;
  /**
   * What a `crash` failure does. Default (in-process): reset every open HTTP connection and close every
   * session's transport (listeners keep accepting new sessions). The CLI sets it to `process.exit(1)`.
   */
  onCrash: (() => void) | undefined;

  readonly #catalog: ResourceCatalog;
  readonly #failures = new FailureQueue();
  readonly #sessions = new Set<TestkitServer>();
  readonly #listeners = new Set<HttpListener>();
  readonly #host: SessionHost;

  constructor(options?: TestServerOptions) {
    this.options = resolveOptions(options);
    this.stats = createStats();
    this.#catalog = new ResourceCatalog(this.options);
    const sessions = this.#sessions;
    const stats = this.stats;
    this.#host = {
      options: this.options,
      catalog: this.#catalog,
      failures: this.#failures,
      stats,
      attach(session) {
        if (sessions.has(session)) return;
        sessions.add(session);
        stats.sessions = sessions.size;
      },
      detach(session) {
        if (!sessions.delete(session)) return;
        stats.sessions = sessions.size;
      },
      crash: () => this.#crash(),
    };
  }

  setLatency(ms: number): void {
    this.options.latencyMs = nonNegativeInteger(ms, 'latency');
  }

  /** Arms a failure for the next matching request(s); failures are consumed in the order armed. */
  failNext(failure: Failure): void {
    this.#failures.add(parseFailure(failure));
  }

  clearFailures(): void {
    this.#failures.clear();
  }

  /** Changes the number of static resources. Does not notify: call {@link triggerListChanged} for that. */
  setResourceCount(n: number): void {
    this.options.resources = nonNegativeInteger(n, 'resource count');
  }

  /** Overrides the content of `uri` (does not notify: call {@link triggerUpdated} for that). */
  setText(uri: string, text: string): void {
    this.#catalog.setText(uri, text);
  }

  /** Sends `notifications/resources/updated` to every session subscribed to `uri`. */
  async triggerUpdated(uri: string): Promise<void> {
    await Promise.allSettled([...this.#sessions].map((s) => s.notifyUpdated(uri)));
  }

  /** Sends `notifications/resources/list_changed` to every session. */
  async triggerListChanged(): Promise<void> {
    await Promise.allSettled([...this.#sessions].map((s) => s.notifyListChanged()));
  }

  /** A new SDK Server (one per session/connection) wired to this shared state; connect it to any transport. */
  createServer(): Server {
    return this.#newSession();
  }

  /** Serves sessionful Streamable HTTP (plus `/control`); default 127.0.0.1, ephemeral port, path `/mcp`. */
  async listenHttp(opts?: HttpListenOptions): Promise<HttpTestServer> {
    const listener = await startHttpListener(
      { control: this, createSession: () => this.#newSession() },
      opts,
    );
    this.#listeners.add(listener);
    return {
      url: listener.url,
      port: listener.port,
      controlUrl: listener.controlUrl,
      close: async () => {
        this.#listeners.delete(listener);
        await listener.close();
      },
    };
  }

  /** Serves one session on this process's stdin/stdout. Resolves once connected. */
  async serveStdio(): Promise<void> {
    await this.#newSession().connect(new StdioServerTransport());
  }

  /** Closes every listener and every session. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#listeners].map((l) => l.close()));
    await Promise.allSettled([...this.#sessions].map((s) => s.close()));
  }

  #newSession(): TestkitServer {
    return new TestkitServer(this.#host);
  }

  #crash(): void {
    if (this.onCrash !== undefined) {
      this.onCrash();
      return;
    }
    // Like a process that died and came straight back: open connections are reset, every session is gone,
    // listeners keep accepting (old session ids now answer 404).
    for (const listener of this.#listeners) listener.dropConnections();
    for (const session of this.#sessions) void session.close().catch(() => undefined);
  }
}
