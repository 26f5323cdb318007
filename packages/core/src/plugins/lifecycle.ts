import type { Logger } from '../logger.js';
import type { LoadedPlugin } from './host.js';

/**
 * The plugins' lifecycle hooks as the gateway runs them: `ready` in load order once the upstreams have
 * had their first attempt, `close` in reverse load order at shutdown, `stats` on demand. A hook that
 * throws (synchronously or not) is logged and skipped; the others still run.
 */
export async function runReadyHooks(plugins: readonly LoadedPlugin[], log: Logger): Promise<void> {
  for (const p of plugins) {
    await settle(() => p.hooks.ready?.()).catch((error) =>
      log.warn('plugin ready hook failed', { plugin: p.name, error: String(error) }),
    );
  }
}

export async function runCloseHooks(plugins: readonly LoadedPlugin[], log: Logger): Promise<void> {
  for (const p of [...plugins].reverse()) {
    await settle(() => p.hooks.close?.()).catch((error) =>
      log.warn('plugin close hook failed', { plugin: p.name, error: String(error) }),
    );
  }
}

/** Each plugin's own figures (its `stats` hook), by plugin name; a failing hook is skipped. */
export function collectPluginStats(
  plugins: readonly LoadedPlugin[],
  log: Logger,
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const p of plugins) {
    try {
      const stats = p.hooks.stats?.();
      if (stats) out[p.name] = stats;
    } catch (error) {
      log.debug('plugin stats hook failed', { plugin: p.name, error: String(error) });
    }
  }
  return out;
}

/** Runs a hook so that a synchronous throw becomes a rejection like an asynchronous one. */
async function settle(hook: () => unknown): Promise<void> {
  await hook();
}
