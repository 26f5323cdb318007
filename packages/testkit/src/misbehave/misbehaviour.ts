import type { ServerCapabilities, ServerEvent, Transport } from '@modelcontextprotocol/server';
import type { TestkitServer } from '../server.js';
import type { SessionHost } from '../session-host.js';
import { isHandshake, type TestServerStats } from '../stats.js';
import { createHttpIntercept, type HttpIntercept } from './http-shim.js';
import { registerListings } from './listing.js';
import type { MisbehaveMode } from './modes.js';
import { rewritesResponses } from './response-rewriter.js';
import { MisbehavingTransport } from './stdio-transport.js';
import type { MisbehaveSession } from './tool-session.js';
import { type MisbehaveTool, misbehaveTools, registerToolCalls, type StoredRequestHandler } from './tools.js';

/** What a {@link Misbehaviour} needs from its TestServer. */
export interface MisbehaviourDeps {
  stats: TestServerStats;
  /** Publishes on the server's change-event bus (modern HTTP listen streams). */
  publish(event: ServerEvent): void;
}

/**
 * The misbehave modes of one TestServer, and where each hooks in: extra tools and list handlers on every
 * session server ({@link install}), a wrapper around the stdio wire ({@link wrapStdio}), and the HTTP
 * intercept ({@link httpIntercept}). Everything the modes do not name stays healthy.
 */
export class Misbehaviour {
  readonly modes: ReadonlySet<MisbehaveMode>;
  /** Installed by the HTTP listener; undefined when no mode concerns HTTP. */
  readonly httpIntercept: HttpIntercept | undefined;
  readonly #tools: MisbehaveTool[];
  readonly #deps: MisbehaviourDeps;

  constructor(modes: readonly MisbehaveMode[], deps: MisbehaviourDeps) {
    this.modes = new Set(modes);
    this.#deps = deps;
    this.#tools = misbehaveTools(this.modes);
    this.httpIntercept = createHttpIntercept(this.modes, {
      intercepted: (method, toolName) => this.#count(method, toolName),
    });
  }

  /** How many tools the modes add (a session with any advertises tools). */
  get toolCount(): number {
    return this.#tools.length;
  }

  /**
   * Installs the modes' tools and list handlers on a new session server, after its normal handlers;
   * `previousCall` is its catalog `tools/call` handler, which keeps serving every other tool.
   */
  install(
    server: TestkitServer,
    host: SessionHost,
    capabilities: ServerCapabilities,
    previousCall: StoredRequestHandler | undefined,
  ): void {
    const cursor = this.modes.has('repeating-cursor')
      ? 'repeating-cursor'
      : this.modes.has('endless-cursor')
        ? 'endless-cursor'
        : undefined;
    registerListings(
      server,
      host,
      capabilities,
      this.#tools.map((t) => t.tool),
      cursor,
    );
    if (this.#tools.length === 0 || capabilities.tools === undefined) return;
    const session: MisbehaveSession = {
      era: server.era,
      server,
      beforeUnsolicited: async () => {
        await server.beforeUnsolicited?.();
      },
      notifyListChanged: (list) => server.notifyListChanged(list),
      publish: (event) => this.#deps.publish(event),
    };
    registerToolCalls(server, host, this.#tools, previousCall, session);
  }

  /**
   * Wraps a stdio wire transport when a mode acts on the wire (`writeRaw` writes a raw line on it, for
   * `stdout-noise`; the banner is written at once); otherwise returns `transport` itself.
   */
  wrapStdio(transport: Transport, writeRaw?: (line: string) => void): Transport {
    const noisy = this.modes.has('stdout-noise') && writeRaw !== undefined;
    if (!noisy && !this.modes.has('hang-handshake') && !rewritesResponses(this.modes)) return transport;
    const wrapped = new MisbehavingTransport(transport, {
      modes: this.modes,
      observer: { swallowed: (method, toolName) => this.#count(method, toolName) },
      ...(noisy ? { writeRaw } : {}),
    });
    wrapped.writeBanner();
    return wrapped;
  }

  /** Counts a request a wire layer answered or swallowed itself, as a session would have. */
  #count(method: string, toolName: string | undefined): void {
    const { stats } = this.#deps;
    stats.requests[method] = (stats.requests[method] ?? 0) + 1;
    if (isHandshake(method)) stats.handshakes += 1;
    if (toolName !== undefined) stats.toolCalls[toolName] = (stats.toolCalls[toolName] ?? 0) + 1;
  }
}
