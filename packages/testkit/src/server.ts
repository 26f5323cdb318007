import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
  Server,
  type ServerCapabilities,
  type ServerOptions,
  type Transport,
} from '@modelcontextprotocol/server';
import { DEFAULT_FAILURE_CODE, DEFAULT_FAILURE_MESSAGE } from './failures.js';
import { registerCompletion } from './features/completion.js';
import { registerPrompts } from './features/prompts.js';
import { registerResources } from './features/resources.js';
import { registerTools } from './features/tools.js';
import type { Misbehaviour } from './misbehave/misbehaviour.js';
import type { ResolvedTestServerOptions } from './options.js';
import type { SessionHost } from './session-host.js';
import { isHandshake } from './stats.js';

export const TESTKIT_VERSION = '0.1.0';

// Kept importable from here for modules written before delay moved to its own file.
export { delay } from './delay.js';

/** The lists whose changes a session can announce with `notifications/<list>/list_changed`. */
export type ListKind = 'resources' | 'tools' | 'prompts';

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

/** `params[key]` of a request, when params is an object. */
function param(message: { params?: unknown }, key: 'uri' | 'name'): unknown {
  const params = message.params;
  return typeof params === 'object' && params !== null ? (params as Record<string, unknown>)[key] : undefined;
}

/**
 * The capabilities a new session advertises: tools and prompts only when it has any right now (`extraTools`:
 * those misbehave modes add).
 */
function capabilitiesOf(host: SessionHost, era: 'legacy' | 'modern', extraTools: number): ServerCapabilities {
  const { options } = host;
  const subscribe = era === 'modern' ? options.modernSubscribe : options.subscribe;
  return {
    resources: { listChanged: true, ...(subscribe ? { subscribe: true } : {}) },
    logging: {},
    ...(options.completions.length > 0 ? { completions: {} } : {}),
    ...(host.prompts.count > 0 ? { prompts: { listChanged: true } } : {}),
    ...(host.tools.count + extraTools > 0 ? { tools: { listChanged: true } } : {}),
  };
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
   * Awaited before an unsolicited (not request-related) notification is sent; over HTTP it waits (bounded)
   * for the session's standalone GET stream, without which the SDK drops the notification.
   */
  beforeUnsolicited: (() => Promise<void>) | undefined;
  /** The wire era this instance serves. */
  readonly era: 'legacy' | 'modern';
  readonly #host: SessionHost;
  readonly #session: boolean;
  #attached = false;

  constructor(host: SessionHost, mode: TestkitServerMode = { era: 'legacy' }, misbehaviour?: Misbehaviour) {
    const capabilities = capabilitiesOf(host, mode.era, misbehaviour?.toolCount ?? 0);
    const hints = cacheHints(host.options);
    super(
      { name: host.options.name, version: TESTKIT_VERSION },
      { capabilities, ...(hints === undefined ? {} : { cacheHints: hints }) },
    );
    this.era = mode.era;
    this.#session = mode.session ?? true;
    this.#host = host;
    // Capabilities are fixed for the session's life: a session opened without tools never serves them.
    registerResources(this, host, this.subscriptions);
    if (capabilities.completions) registerCompletion(this, host);
    if (capabilities.prompts) registerPrompts(this, host);
    if (capabilities.tools) registerTools(this, host);
    misbehaviour?.install(this, host, capabilities, this._getRequestHandler('tools/call'));
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

  /**
   * Sends `notifications/<list>/list_changed` (a modern stdio session's listen router delivers it to the matching
   * `subscriptions/listen`). Skipped when this session never advertised that list (opened with no tools, say).
   */
  async notifyListChanged(list: ListKind = 'resources'): Promise<void> {
    if (this.transport === undefined) return;
    if (this.getCapabilities()[list] === undefined) return;
    await this.beforeUnsolicited?.();
    if (list === 'tools') await this.sendToolListChanged();
    else if (list === 'prompts') await this.sendPromptListChanged();
    else await this.sendResourceListChanged();
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
    if (isHandshake(message.method)) stats.handshakes += 1;
    const name = param(message, 'name');
    if (typeof name === 'string') {
      if (message.method === 'tools/call') stats.toolCalls[name] = (stats.toolCalls[name] ?? 0) + 1;
      else if (message.method === 'prompts/get') stats.promptGets[name] = (stats.promptGets[name] ?? 0) + 1;
    }
    const failure = failures.take(message.method, param(message, 'uri'), name);
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
}
