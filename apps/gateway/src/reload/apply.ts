import {
  closePlugins,
  type Gateway,
  type LoadedPlugin,
  type Logger,
  type Store,
  type UpstreamChanges,
} from '@switchyard/core';
import { ClientDirectory } from '@switchyard/core/listener';
import type { ReloadRecord } from '../admin/status.js';
import { createAuthenticator } from '../auth/authenticator.js';
import type { LiveAuthenticator } from '../auth/live-authenticator.js';
import { ConfigError, type GatewayConfig, loadConfigFile } from '../config/load.js';
import type { UserCredentials } from '../credentials/user-credentials.js';
import { DEFAULT_LIMITS, type Limits } from '../listeners/limits.js';
import { loadPlugins } from '../plugins.js';
import { describeReload, diffConfig, RESTART_ONLY } from './diff.js';

/** How many reloads the status page keeps. */
const HISTORY = 20;

/** What a reload changes in the running gateway. */
export interface ReloadTargets {
  gateway: Gateway;
  /** The authenticator every listener holds; replaced when clients, tokens or OAuth settings change. */
  auth: LiveAuthenticator;
  /** The limits object the listeners read; updated in place. */
  limits: Limits;
  /** The plugin instances the gateway was started with (one per config entry, in order). */
  plugins: readonly LoadedPlugin[];
  /** The store plugins set up on a reload get (the one they started with: `store` changes need a restart). */
  store: Store;
  logger: Logger;
  /** Each person's upstream credentials (`credentials`): told of personal upstreams added, changed, removed. */
  credentials?: UserCredentials;
  /** After the virtual servers changed: the listeners close the sessions of those removed. */
  onEndpoints?: () => Promise<void>;
  /** Reads the config file (tests may substitute it). */
  load?: (file: string) => Promise<GatewayConfig>;
}

/**
 * Applies a changed config file to the running gateway (DESIGN §10): plugins whose entry changed are set
 * up anew and swapped in (`Gateway.replacePlugins`), upstreams through `Gateway.reconfigure`, identities
 * by swapping the authenticator, limits in place. An invalid file, or a plugin that fails to set up, is
 * refused with the same message as at start, and the running config stays. Reloads run one at a time.
 */
export class ConfigReloader {
  readonly #targets: ReloadTargets;
  readonly #file: string;
  #running: GatewayConfig;
  #plugins: readonly LoadedPlugin[];
  readonly #history: ReloadRecord[] = [];
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(file: string, config: GatewayConfig, targets: ReloadTargets) {
    this.#file = file;
    this.#running = config;
    this.#targets = targets;
    this.#plugins = targets.plugins;
  }

  /** The config now in effect. */
  get config(): GatewayConfig {
    return this.#running;
  }

  /** Reloads so far, newest first (the last 20). */
  get history(): ReloadRecord[] {
    return [...this.#history];
  }

  /** Reloads asked for from now on are ignored (the gateway is shutting down). */
  close(): void {
    this.#closed = true;
  }

  /** Re-reads the file and applies it; `trigger` says why, for the log. */
  reload(trigger: string): Promise<ReloadRecord> {
    // Never rejects: a trigger (a signal, a file event) has nobody to hand an error to.
    const run = this.#queue.then(() =>
      this.#reload(trigger).catch((error: unknown) => {
        this.#targets.logger.error('reload failed part way', { trigger, error: String(error) });
        return this.#record({ time: now(), outcome: 'refused', error: String(error) });
      }),
    );
    this.#queue = run;
    return run;
  }

  async #reload(trigger: string): Promise<ReloadRecord> {
    const { logger } = this.#targets;
    let next: GatewayConfig;
    try {
      next = await (this.#targets.load ?? loadConfigFile)(this.#file);
    } catch (error) {
      const message = error instanceof ConfigError ? error.details : String(error);
      logger.error(`reload refused; the running config stays: ${message}`, { trigger });
      return this.#record({ time: now(), outcome: 'refused', error: message });
    }
    if (this.#closed) {
      return this.#record({ time: now(), outcome: 'refused', error: 'the gateway is shutting down' });
    }
    const diff = diffConfig(this.#running, next);
    const refuse = (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      logger.error(`reload refused; the running config stays: ${message}`, { trigger });
      return this.#record({ time: now(), outcome: 'refused', error: message });
    };
    // Plugins are set up before anything changes, so that one failing to set up refuses the whole reload.
    let plugins = this.#plugins;
    if (diff.plugins) {
      try {
        plugins = await loadPlugins(next, logger, this.#targets.store, {
          config: this.#running,
          plugins: this.#plugins,
        });
      } catch (error) {
        return refuse(error);
      }
    }
    const { gateway } = this.#targets;
    let upstreams: UpstreamChanges;
    try {
      upstreams = await gateway.reconfigure(next.upstreams);
      this.#targets.credentials?.reconfigure(next.upstreams);
    } catch (error) {
      await this.#discard(plugins);
      return refuse(error);
    }
    if (plugins !== this.#plugins) await this.#replacePlugins(plugins, next);
    if (diff.clients || diff.oauth) this.#replaceAuth(next);
    if (diff.limits) Object.assign(this.#targets.limits, next.limits ?? DEFAULT_LIMITS);
    if (diff.endpoints) {
      gateway.reconfigureViews(next.virtualServers, next.toolSearch);
      await this.#targets.onEndpoints?.();
    }
    if (diff.restartOnly.length > 0) {
      logger.warn('these settings need a restart to take effect', { settings: diff.restartOnly.join(',') });
    }
    // What runs: the file's settings, but those that need a restart as they still are (a later reload that
    // puts one back as it was then needs no restart, and is not said to).
    const kept = Object.fromEntries(RESTART_ONLY.map((key) => [key, this.#running[key]]));
    this.#running = { ...next, ...kept };
    logger.info(`reload applied: ${describeReload(upstreams, diff)}`, { trigger });
    return this.#record({ time: now(), outcome: 'applied', ...upstreams });
  }

  /** Swaps the plugins in; the old instances are closed once their requests finish (not awaited here). */
  async #replacePlugins(plugins: readonly LoadedPlugin[], next: GatewayConfig): Promise<void> {
    const { gateway, logger } = this.#targets;
    const { closed } = await gateway.replacePlugins(plugins, next.shutdownGraceMs);
    this.#plugins = plugins;
    closed.catch((error: unknown) =>
      logger.warn('closing replaced plugins failed', { error: String(error) }),
    );
  }

  /** Closes plugin instances set up for a reload that was then refused. */
  async #discard(plugins: readonly LoadedPlugin[]): Promise<void> {
    const fresh = plugins.filter((p) => !this.#plugins.includes(p));
    await closePlugins(fresh, this.#targets.logger);
  }

  #replaceAuth(next: GatewayConfig): void {
    const clients = new ClientDirectory({ clients: next.clients, anonymous: next.anonymous });
    this.#targets.auth.replace(
      createAuthenticator({
        clients,
        anonymousAllowed: next.anonymous !== undefined,
        oauth: next.auth?.oauth,
        logger: this.#targets.logger,
      }),
    );
  }

  #record(record: ReloadRecord): ReloadRecord {
    this.#history.unshift(record);
    this.#history.length = Math.min(this.#history.length, HISTORY);
    return record;
  }
}

function now(): string {
  return new Date().toISOString();
}
