import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
  ProtocolError,
  ResourceNotFoundError,
  Server,
  type ServerCapabilities,
  type ServerOptions,
  type Transport,
} from '@modelcontextprotocol/server';
import type { ResourceCatalog } from './catalog.js';
import { DEFAULT_FAILURE_CODE, DEFAULT_FAILURE_MESSAGE, type FailureQueue } from './failures.js';
import type { ResolvedTestServerOptions } from './options.js';
import { pageWindow } from './paging.js';
import type { TestServerStats } from './stats.js';

export const TESTKIT_VERSION = '0.1.0';

/** The shared state a session server reads and reports into (implemented by TestServer). */
export interface SessionHost {
  readonly options: ResolvedTestServerOptions;
  readonly catalog: ResourceCatalog;
  readonly failures: FailureQueue;
  readonly stats: TestServerStats;
  attach(session: TestkitServer): void;
  detach(session: TestkitServer): void;
  crash(): void;
}

/** Which wire era an instance serves, and whether it is a session (counted, notified) or one stateless exchange. */
export interface TestkitServerMode {
  era: 'legacy' | 'modern';
  /** Default true. False for modern-era HTTP per-request instances (they live for one exchange). */
  session?: boolean;
}

/** The `cacheHints` for the configured cache options (undefined when neither is set). */
function cacheHints(options: ResolvedTestServerOptions): ServerOptions['cacheHints'] {
  if (options.cacheTtlMs === undefined && options.cacheScope === undefined) return undefined;
  const hint = {
    ...(options.cacheTtlMs === undefined ? {} : { ttlMs: options.cacheTtlMs }),
    ...(options.cacheScope === undefined ? {} : { cacheScope: options.cacheScope }),
  };
  return { 'resources/list': hint, 'resources/templates/list': hint, 'resources/read': hint };
}

/** Resolves after `ms`, or rejects with the abort reason as soon as `signal` aborts. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function paramsUri(message: { params?: unknown }): unknown {
  const params = message.params;
  return typeof params === 'object' && params !== null ? (params as { uri?: unknown }).uri : undefined;
}

/**
 * One SDK `Server` per session/connection, wired to the shared {@link SessionHost}. Inbound traffic is
 * observed (and, for injected failures, intercepted) at the transport seam, so every request method is
 * counted and can be failed, including the SDK-owned `initialize` and `ping`.
 */
export class TestkitServer extends Server {
  /** URIs this session is subscribed to. */
  readonly subscriptions = new Set<string>();
  /**
   * Awaited before an unsolicited (not request-related) notification is sent; the HTTP listener uses it to
   * wait (bounded) for the session's standalone GET stream, without which the SDK drops the notification.
   */
  beforeUnsolicited: (() => Promise<void>) | undefined;
  /** The wire era this instance serves. */
  readonly era: 'legacy' | 'modern';
  readonly #host: SessionHost;
  readonly #session: boolean;
  #attached = false;

  constructor(host: SessionHost, mode: TestkitServerMode = { era: 'legacy' }) {
    const { options } = host;
    const capabilities: ServerCapabilities = {
      resources: { listChanged: true, ...(options.subscribe ? { subscribe: true } : {}) },
      logging: {},
      ...(options.completions.length > 0 ? { completions: {} } : {}),
      ...(host.catalog.prompts.length > 0 ? { prompts: {} } : {}),
    };
    const hints = cacheHints(options);
    super(
      { name: options.name, version: TESTKIT_VERSION },
      { capabilities, ...(hints === undefined ? {} : { cacheHints: hints }) },
    );
    this.era = mode.era;
    this.#session = mode.session ?? true;
    this.#host = host;
    this.#registerHandlers();
  }

  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    // Protocol.connect installed its dispatcher; put the failure gate in front of it.
    const dispatch = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      if (this.#inbound(transport, message)) dispatch?.(message, extra);
    };
    const onclose = transport.onclose;
    transport.onclose = () => {
      this.#detach();
      onclose?.();
    };
    if (!this.#session) return;
    this.#attached = true;
    this.#host.attach(this);
  }

  /**
   * Sends `notifications/resources/updated` if this session is subscribed to `uri` (legacy era); a modern
   * session always sends it and the SDK's listen router delivers it to the matching `subscriptions/listen`.
   */
  async notifyUpdated(uri: string): Promise<boolean> {
    if (this.transport === undefined) return false;
    if (this.era === 'legacy' && !this.subscriptions.has(uri)) return false;
    await this.beforeUnsolicited?.();
    await this.sendResourceUpdated({ uri });
    return true;
  }

  async notifyListChanged(): Promise<void> {
    if (this.transport === undefined) return;
    await this.beforeUnsolicited?.();
    await this.sendResourceListChanged();
  }

  #detach(): void {
    if (!this.#attached) return;
    this.#attached = false;
    this.#host.detach(this);
  }

  /** Counts the message and applies any armed failure; returns whether to dispatch it to the SDK. */
  #inbound(transport: Transport, message: JSONRPCMessage): boolean {
    const { stats, failures } = this.#host;
    if (isJSONRPCNotification(message)) {
      if (message.method === 'notifications/cancelled') stats.cancelled += 1;
      return true;
    }
    if (!isJSONRPCRequest(message)) return true;
    stats.requests[message.method] = (stats.requests[message.method] ?? 0) + 1;
    const failure = failures.take(message.method, paramsUri(message));
    if (failure === undefined) return true;
    switch (failure.mode) {
      case 'error': {
        const send = (): void => {
          transport
            .send({
              jsonrpc: '2.0',
              id: message.id,
              error: {
                code: failure.code ?? DEFAULT_FAILURE_CODE,
                message: failure.message ?? DEFAULT_FAILURE_MESSAGE,
              },
            })
            .catch((error: unknown) =>
              this.onerror?.(error instanceof Error ? error : new Error(String(error))),
            );
        };
        // Modern per-request transports treat an error sent while the message is being delivered as a
        // validation-ladder rejection (mapped HTTP status); answer after delivery, like a handler would.
        if (this.era === 'modern') queueMicrotask(send);
        else send();
        return false;
      }
      case 'hang':
        // Never dispatched, never answered; a later notifications/cancelled is counted above.
        return false;
      case 'crash':
        this.#host.crash();
        return false;
    }
  }

  #registerHandlers(): void {
    const { options, catalog, stats } = this.#host;

    this.setRequestHandler('resources/list', async (request, ctx) => {
      const page = pageWindow(request.params?.cursor, catalog.resourceCount, options.pageSize);
      await delay(options.latencyMs, ctx.mcpReq.signal);
      const resources = [];
      for (let i = page.start; i < page.end; i++) resources.push(catalog.resourceAt(i));
      return page.nextCursor === undefined ? { resources } : { resources, nextCursor: page.nextCursor };
    });

    this.setRequestHandler('resources/templates/list', async (request, ctx) => {
      const page = pageWindow(request.params?.cursor, catalog.templateCount, options.pageSize);
      await delay(options.latencyMs, ctx.mcpReq.signal);
      const resourceTemplates = [];
      for (let j = page.start; j < page.end; j++) resourceTemplates.push(catalog.templateAt(j));
      return page.nextCursor === undefined
        ? { resourceTemplates }
        : { resourceTemplates, nextCursor: page.nextCursor };
    });

    this.setRequestHandler('resources/read', async (request, ctx) => {
      const { uri } = request.params;
      await delay(options.latencyMs, ctx.mcpReq.signal);
      const contents = catalog.read(uri);
      if (contents === undefined) throw new ResourceNotFoundError(uri);
      const progressToken = ctx.mcpReq._meta?.progressToken;
      if (progressToken !== undefined && options.progress > 0) {
        const total = options.progress;
        for (let progress = 1; progress <= total; progress++) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress, total },
          });
        }
        await ctx.mcpReq.notify({
          method: 'notifications/message',
          params: { level: 'info', logger: options.name, data: `read ${uri}` },
        });
      }
      return { contents: [contents] };
    });

    if (options.subscribe) {
      this.setRequestHandler('resources/subscribe', (request) => {
        const { uri } = request.params;
        this.subscriptions.add(uri);
        stats.subscribeCalls += 1;
        stats.subscribed[uri] = (stats.subscribed[uri] ?? 0) + 1;
        return {};
      });
      this.setRequestHandler('resources/unsubscribe', (request) => {
        const { uri } = request.params;
        this.subscriptions.delete(uri);
        stats.unsubscribeCalls += 1;
        stats.subscribed[uri] = (stats.subscribed[uri] ?? 0) - 1;
        return {};
      });
    }

    if (options.completions.length > 0) {
      this.setRequestHandler('completion/complete', async (request, ctx) => {
        const { ref, argument } = request.params;
        await delay(options.latencyMs, ctx.mcpReq.signal);
        if (ref.type === 'ref/prompt')
          return { completion: catalog.completePrompt(ref.name, argument.value) };
        return { completion: catalog.complete(ref.uri, argument.value) };
      });
    }

    if (catalog.prompts.length > 0) {
      this.setRequestHandler('prompts/list', () => ({ prompts: [...catalog.prompts] }));
      this.setRequestHandler('prompts/get', (request) => {
        const prompt = catalog.prompts.find((p) => p.name === request.params.name);
        if (!prompt) throw new ProtocolError(-32602, `Unknown prompt: ${request.params.name}`);
        const args = JSON.stringify(request.params.arguments ?? {});
        return { messages: [{ role: 'user', content: { type: 'text', text: `${prompt.name} ${args}` } }] };
      });
    }
  }
}
