import type { ServerCapabilities } from '@modelcontextprotocol/client';
import type { UpstreamConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { PersonalCredentials } from './auth/personal-credentials.js';
import { isPersonal } from './auth/upstream-auth.js';
import type { CallChain } from './call-chain.js';
import { UpstreamConnection, type UpstreamListener } from './connection.js';
import { errorMessage } from './errors.js';
import { DEFAULT_UPSTREAM_LIMITS, type UpstreamLimits } from './limits.js';
import { PersonalUpstream } from './personal-upstream.js';

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
  /** Connections made since it was configured: above 1, it reconnected (dropped, or its server restarted). */
  connections: number;
}

/** A server feature an upstream may offer. */
export type UpstreamFeature = 'resources' | 'tools' | 'prompts' | 'completions';

/** What a reconfiguration did to the upstream set, by server name. */
export interface UpstreamChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** The outcome of {@link UpstreamPool.reconfigure}: connections the caller closes and starts. */
export interface PoolReconfiguration {
  changes: UpstreamChanges;
  /** Connections no longer in the pool (removed, or replaced because their config changed). */
  retired: UpstreamConnection[];
  /** New connections (added, or replacing a changed one), not started yet. */
  created: UpstreamConnection[];
}

/**
 * Every configured upstream connection, in config order (the order that wins collisions). The set can
 * be replaced at run time ({@link reconfigure}); readers take `ordered` and `names` afresh each time.
 */
export class UpstreamPool {
  #ordered: readonly UpstreamConnection[] = [];
  #names: readonly string[] = [];
  #byName = new Map<string, UpstreamConnection>();
  readonly #listener: UpstreamListener;
  readonly #logger: Logger;
  readonly #chain: CallChain;
  readonly #limits: UpstreamLimits;
  readonly #personal: PersonalCredentials | undefined;

  constructor(
    configs: readonly UpstreamConfig[],
    listener: UpstreamListener,
    logger: Logger,
    chain: CallChain,
    limits: UpstreamLimits = DEFAULT_UPSTREAM_LIMITS,
    personal?: PersonalCredentials,
  ) {
    this.#listener = listener;
    this.#logger = logger;
    this.#chain = chain;
    this.#limits = limits;
    this.#personal = personal;
    this.#install(configs, () => undefined);
  }

  get ordered(): readonly UpstreamConnection[] {
    return this.#ordered;
  }

  get names(): readonly string[] {
    return this.#names;
  }

  /** What upstreams may send (`limits`), read live. */
  get limits(): UpstreamLimits {
    return this.#limits;
  }

  /**
   * Replaces the upstream set with `configs`: an upstream whose normalized config is unchanged keeps its
   * connection (and everything riding on it); a changed one gets a new connection; removed ones leave.
   * Throws on a duplicate name without touching the pool.
   */
  reconfigure(configs: readonly UpstreamConfig[]): PoolReconfiguration {
    assertUnique(configs);
    const previous = this.#byName;
    const changes: UpstreamChanges = { added: [], removed: [], changed: [] };
    const created = this.#install(configs, (config) => {
      const old = previous.get(config.name);
      if (old && sameConfig(old.config, config)) return old;
      (old ? changes.changed : changes.added).push(config.name);
      return undefined;
    });
    const retired = [...previous.values()].filter((u) => this.#byName.get(u.name) !== u);
    changes.removed = retired.filter((u) => !this.#byName.has(u.name)).map((u) => u.name);
    return { changes, retired, created };
  }

  /** Builds the name map from `configs`, reusing what `reuse` returns; yields the new connections. */
  #install(
    configs: readonly UpstreamConfig[],
    reuse: (config: UpstreamConfig) => UpstreamConnection | undefined,
  ): UpstreamConnection[] {
    assertUnique(configs);
    const byName = new Map<string, UpstreamConnection>();
    const created: UpstreamConnection[] = [];
    for (const config of configs) {
      let connection = reuse(config);
      if (!connection) {
        connection = this.#create(config);
        created.push(connection);
      }
      byName.set(config.name, connection);
    }
    this.#byName = byName;
    this.#ordered = Object.freeze([...byName.values()]);
    this.#names = Object.freeze([...byName.keys()]);
    return created;
  }

  /** A connection for `config`: a personal upstream's per-person connections, or one of its own. */
  #create(config: UpstreamConfig): UpstreamConnection {
    if (!isPersonal(config)) {
      return new UpstreamConnection(config, this.#listener, this.#logger, this.#chain, this.#limits);
    }
    if (this.#personal === undefined) {
      throw new Error(
        `Upstream '${config.name}' authorizes each person (auth.user), and the gateway has no credentials vault: configure "credentials".`,
      );
    }
    return new PersonalUpstream(
      config,
      this.#listener,
      this.#logger,
      this.#chain,
      this.#limits,
      this.#personal,
    );
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
      connections: u.connections,
    }));
  }

  start(): void {
    for (const u of this.ordered) u.start();
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.ordered.map((u) => u.close()));
  }
}

function assertUnique(configs: readonly UpstreamConfig[]): void {
  const seen = new Set<string>();
  for (const { name } of configs) {
    if (seen.has(name)) throw new Error(`Duplicate upstream name '${name}'`);
    seen.add(name);
  }
}

/** Whether two upstream configs describe the same connection (key order does not matter). */
export function sameConfig(a: UpstreamConfig, b: UpstreamConfig): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
}

/** Whether capabilities include `feature`. */
export function offered(capabilities: ServerCapabilities | undefined, feature: UpstreamFeature): boolean {
  return capabilities?.[feature] !== undefined;
}
