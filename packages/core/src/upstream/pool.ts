import type { ServerCapabilities } from '@modelcontextprotocol/client';
import type { UpstreamConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { CallChain } from './call-chain.js';
import { UpstreamConnection, type UpstreamListener } from './connection.js';

export interface UpstreamStatus {
  name: string;
  state: string;
  prefix: boolean;
  transport: string;
  protocolVersion?: string;
  era?: 'modern' | 'legacy';
  /** Whether readiness waits for this upstream (`"required": true`). */
  required: boolean;
  /** ISO time of the current connection, while connected. */
  connectedSince?: string;
  /** Why the upstream last failed or disconnected (cleared by a successful connection). */
  lastError?: string;
}

/** A server feature an upstream may offer. */
export type UpstreamFeature = 'resources' | 'tools' | 'prompts' | 'completions';

/** Every configured upstream connection, in config order (the order that wins collisions). */
export class UpstreamPool {
  readonly ordered: readonly UpstreamConnection[];
  readonly names: readonly string[];
  readonly #byName = new Map<string, UpstreamConnection>();

  constructor(
    configs: readonly UpstreamConfig[],
    listener: UpstreamListener,
    logger: Logger,
    chain: CallChain,
  ) {
    for (const config of configs) {
      if (this.#byName.has(config.name)) throw new Error(`Duplicate upstream name '${config.name}'`);
      this.#byName.set(config.name, new UpstreamConnection(config, listener, logger, chain));
    }
    this.ordered = [...this.#byName.values()];
    this.names = Object.freeze([...this.#byName.keys()]);
  }

  get(name: string): UpstreamConnection | undefined {
    return this.#byName.get(name);
  }

  /** The connection named `name`; a name that is not configured is a gateway bug. */
  require(name: string): UpstreamConnection {
    const upstream = this.#byName.get(name);
    if (!upstream) throw new Error(`unknown upstream ${name}`);
    return upstream;
  }

  /** Whether any upstream offered `feature` when it last connected (what the gateway advertises). */
  offers(feature: UpstreamFeature): boolean {
    return this.ordered.some((u) => offered(u.knownCapabilities, feature));
  }

  status(): UpstreamStatus[] {
    return this.ordered.map((u) => ({
      name: u.name,
      state: u.state,
      prefix: u.config.prefix,
      transport: u.config.transport.kind,
      protocolVersion: u.protocolVersion,
      era: u.era,
      required: u.config.required === true,
      connectedSince: u.connectedSince === undefined ? undefined : new Date(u.connectedSince).toISOString(),
      lastError: u.lastError === undefined ? undefined : errorMessage(u.lastError),
    }));
  }

  start(): void {
    for (const u of this.ordered) u.start();
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.ordered.map((u) => u.close()));
  }
}

/** Whether capabilities include `feature`. */
export function offered(capabilities: ServerCapabilities | undefined, feature: UpstreamFeature): boolean {
  return capabilities?.[feature] !== undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
