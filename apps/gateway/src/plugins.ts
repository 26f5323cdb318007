import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type LoadedPlugin,
  type Logger,
  type PluginEntry,
  PluginError,
  type Store,
  setupPlugins,
} from '@switchyard/core';
import { canonical } from './config/canonical.js';
import type { GatewayConfig } from './config/load.js';

/** The plugins a gateway runs: its config's entries and the instances set up from them, in order. */
export interface RunningPlugins {
  config: GatewayConfig;
  plugins: readonly LoadedPlugin[];
}

/**
 * Loads the config's plugins in order: a package name resolves from the gateway's own dependencies,
 * a relative path from the config file's folder. The module default-exports `definePlugin(...)`.
 * With `running` (a reload), an entry whose specifier and options are unchanged keeps its running
 * instance; the others are set up anew.
 */
export async function loadPlugins(
  config: GatewayConfig,
  logger: Logger,
  store: Store,
  running?: RunningPlugins,
): Promise<LoadedPlugin[]> {
  const entries = [];
  const keys = new Map<PluginEntry, string>();
  for (const [i, { specifier, options }] of config.plugins.entries()) {
    const { local, target } = moduleTarget(config, specifier);
    let module: { default?: unknown; plugin?: unknown };
    try {
      module = (await import(target)) as { default?: unknown; plugin?: unknown };
    } catch (error) {
      const where = local ? `relative to ${config.baseDir}` : "from the gateway's own dependencies";
      throw new PluginError(
        'PLUGIN_INVALID',
        specifier,
        `Cannot load plugin "${specifier}" ($.plugins[${i}], resolved ${where}): ${(error as Error).message}`,
        { cause: error },
      );
    }
    const entry = {
      plugin: module.default ?? module.plugin,
      options,
      source: specifier,
      at: `$.plugins[${i}]`,
    };
    keys.set(entry, entryKey(target, options));
    entries.push(entry);
  }
  const reusable = new Map<string, LoadedPlugin>();
  if (running) {
    for (const [i, { specifier, options }] of running.config.plugins.entries()) {
      const instance = running.plugins[i];
      if (instance) reusable.set(entryKey(moduleTarget(running.config, specifier).target, options), instance);
    }
  }
  return setupPlugins(entries, logger, {
    baseDir: config.baseDir,
    store,
    reuse: (entry) => reusable.get(keys.get(entry) ?? ''),
  });
}

/** What `import()` is given for a specifier: a package name as is, a path as a file URL from the config's folder. */
function moduleTarget(config: GatewayConfig, specifier: string): { local: boolean; target: string } {
  const local = specifier.startsWith('.') || isAbsolute(specifier);
  return { local, target: local ? pathToFileURL(resolve(config.baseDir, specifier)).href : specifier };
}

function entryKey(target: string, options: unknown): string {
  return `${target}\n${canonical(options)}`;
}
