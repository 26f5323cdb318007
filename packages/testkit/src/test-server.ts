import type { Server, ServerEvent, Transport } from '@modelcontextprotocol/server';
import { type StdioServerHandle, StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { ResourceCatalog } from './catalog.js';
import { CountingEventBus } from './event-bus.js';
import { type Failure, FailureQueue, parseFailure } from './failures.js';
import { type HttpListener, type HttpListenOptions, type HttpTestServer, startHttpListener } from './http.js';
import { Misbehaviour } from './misbehave/misbehaviour.js';
import { ListenObservingTransport } from './observed-transport.js';
import { type ResolvedTestServerOptions, resolveOptions, type TestServerOptions } from './options.js';
import { PromptCatalog } from './prompt-catalog.js';
import { type ListKind, TestkitServer, type TestkitServerMode } from './server.js';
import type { SessionHost } from './session-host.js';
import { createStats, type TestServerStats } from './stats.js';
import { ToolCatalog } from './tool-catalog.js';

function nonNegativeInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${what} must be a non-negative integer`);
  return value;
}

/** Options of {@link TestServer.serveStdio}. */
export interface StdioServeOptions {
  /** Serve on this transport instead of the process's stdin/stdout. */
  transport?: Transport;
}

/** The change event the modern listen streams get for each list. */
const LIST_CHANGED_EVENTS: Record<ListKind, ServerEvent> = {
  resources: { kind: 'resources_list_changed' },
  tools: { kind: 'tools_list_changed' },
  prompts: { kind: 'prompts_list_changed' },
};

/**
 * A programmable upstream MCP server for tests and benchmarks. Its state (resources, tools, prompts, failures,
 * latency, stats) is shared by every session it serves, whether over HTTP ({@link listenHttp}), stdio
 * ({@link serveStdio}) or any transport a test connects {@link createServer}'s result to.
 *
 * @example
 * const upstream = new TestServer({ name: 'docs', resources: 25, pageSize: 10, tools: 3, behaviorTools: true });
 * const http = await upstream.listenHttp();
 * upstream.failNext({ method: 'resources/read', mode: 'error', code: -32000 });
 * upstream.failNext({ method: 'tools/call', name: 'tool_1', mode: 'hang' });
 * await upstream.triggerUpdated('test://docs/r/3');
 * await upstream.setToolCount(5); // notifies tools/list_changed
 * await upstream.close();
 */
export class TestServer {
  /**
   * The resolved options; `setLatency`, `setResourceCount`, `setToolCount` and `setPromptCount` update
   * `latencyMs`, `resources`, `tools` and `prompts` live.
   */
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
  readonly #stdio = new Set<StdioServerHandle>();
  readonly #host: SessionHost;
  readonly #bus: CountingEventBus;
  readonly #misbehaviour: Misbehaviour | undefined;
  #stdioListens = 0;

  constructor(options?: TestServerOptions) {
    this.options = resolveOptions(options);
    this.stats = createStats();
    this.#catalog = new ResourceCatalog(this.options);
    const tools = new ToolCatalog(this.options);
    const prompts = new PromptCatalog(this.options, this.#catalog);
    const sessions = this.#sessions;
    const stats = this.stats;
    this.#bus = new CountingEventBus(() => this.#countListens());
    this.#misbehaviour =
      this.options.misbehave === undefined
        ? undefined
        : new Misbehaviour(this.options.misbehave, { stats, publish: (event) => this.#bus.publish(event) });
    this.#host = {
      options: this.options,
      catalog: this.#catalog,
      tools,
      prompts,
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

  /**
   * Sends `notifications/resources/updated` to every legacy session subscribed to `uri`, and publishes it to
   * the modern `subscriptions/listen` streams (HTTP and stdio) whose filter includes `uri`.
   */
  async triggerUpdated(uri: string): Promise<void> {
    this.#bus.publish({ kind: 'resource_updated', uri });
    await Promise.allSettled([...this.#sessions].map((s) => s.notifyUpdated(uri)));
  }

  /** Sends `notifications/resources/list_changed` to every legacy session and every modern listen stream. */
  async triggerListChanged(): Promise<void> {
    await this.#listChanged('resources');
  }

  /**
   * Changes the number of generated tools and sends `notifications/tools/list_changed` (see
   * {@link triggerToolsListChanged}). Capabilities are fixed per session: a session opened while the server had
   * no tool at all does not advertise tools, so it neither serves them nor hears of the change.
   */
  async setToolCount(n: number): Promise<void> {
    this.options.tools = nonNegativeInteger(n, 'tool count');
    await this.triggerToolsListChanged();
  }

  /** Changes the number of generated prompts and sends `notifications/prompts/list_changed` (as for tools). */
  async setPromptCount(n: number): Promise<void> {
    this.options.prompts = nonNegativeInteger(n, 'prompt count');
    await this.triggerPromptsListChanged();
  }

  /**
   * Sends `notifications/tools/list_changed` to every session that advertises tools, and publishes it to the
   * modern `subscriptions/listen` streams whose filter has `toolsListChanged` (the SDK honours that filter
   * only on streams opened while the server advertised tools).
   */
  async triggerToolsListChanged(): Promise<void> {
    await this.#listChanged('tools');
  }

  /** Sends `notifications/prompts/list_changed` like {@link triggerToolsListChanged} (`promptsListChanged`). */
  async triggerPromptsListChanged(): Promise<void> {
    await this.#listChanged('prompts');
  }

  /** A new SDK Server (one per session/connection) wired to this shared state; connect it to any transport. */
  createServer(): Server {
    return this.#newSession();
  }

  /**
   * Serves Streamable HTTP (plus `/control`); default 127.0.0.1, ephemeral port, path `/mcp`. 2025-era
   * requests get the sessionful endpoint; with `modern: true`, modern (2026-07-28) requests are served
   * statelessly at the same URL by the SDK's `createMcpHandler`, one instance per request, sharing this
   * server's state and stats.
   */
  async listenHttp(opts?: HttpListenOptions): Promise<HttpTestServer> {
    const stats = this.stats;
    const listener = await startHttpListener(
      {
        control: this,
        createSession: (stream) => {
          const session = this.#newSession();
          session.beforeUnsolicited = () => stream.opened();
          return session;
        },
        intercept: this.#misbehaviour?.httpIntercept,
        modern: !this.options.modern
          ? undefined
          : {
              factory: () => this.#newSession({ era: 'modern', session: false }),
              bus: this.#bus,
              onMessage: (body) => {
                // The SDK serves `subscriptions/listen` itself (it never reaches an instance): count it here.
                const method = (body as { method?: unknown; id?: unknown } | null)?.method;
                if (method === 'subscriptions/listen')
                  stats.requests[method] = (stats.requests[method] ?? 0) + 1;
              },
            },
      },
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

  /**
   * Serves one connection on this process's stdin/stdout (or `opts.transport`). With `modern: true` it uses
   * the SDK's `serveStdio`: the opening message picks the era (2025 `initialize` or a modern 2026-07-28
   * request) for the connection. Resolves once serving.
   */
  async serveStdio(opts: StdioServeOptions = {}): Promise<void> {
    // Misbehave modes act on the wire itself, under the SDK (stdout-noise only on the real stdout).
    const raw = opts.transport ?? new StdioServerTransport();
    const wire =
      this.#misbehaviour?.wrapStdio(
        raw,
        opts.transport === undefined ? (line) => process.stdout.write(`${line}\n`) : undefined,
      ) ?? raw;
    if (!this.options.modern) {
      // 2025 era only: one session on the transport, as before.
      await this.#newSession().connect(wire);
      return;
    }
    const stats = this.stats;
    const transport = new ListenObservingTransport(wire, {
      listenRequested: () => {
        stats.requests['subscriptions/listen'] = (stats.requests['subscriptions/listen'] ?? 0) + 1;
      },
      openListensChanged: (delta) => {
        this.#stdioListens += delta;
        this.#countListens();
      },
    });
    const handle = serveStdio((ctx) => this.#newSession({ era: ctx.era }), { transport });
    this.#stdio.add(handle);
  }

  /** Closes every listener and every session. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#listeners].map((l) => l.close()));
    await Promise.allSettled([...this.#stdio].map((h) => h.close()));
    this.#stdio.clear();
    await Promise.allSettled([...this.#sessions].map((s) => s.close()));
  }

  async #listChanged(list: ListKind): Promise<void> {
    this.#bus.publish(LIST_CHANGED_EVENTS[list]);
    await Promise.allSettled([...this.#sessions].map((s) => s.notifyListChanged(list)));
  }

  #countListens(): void {
    this.stats.listens = this.#bus.size + this.#stdioListens;
  }

  #newSession(mode?: TestkitServerMode): TestkitServer {
    return new TestkitServer(this.#host, mode, this.#misbehaviour);
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
