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
import { shareCoreWithPlugins } from './plugin-core-resolve.js';

/** The plugins a gateway runs: its config's entries and the instances set up from them, in order. */
export interface RunningPlugins {
  config: GatewayConfig;
  plugins: readonly LoadedPlugin[];
}

/**
 * Loads the config's plugins in order: a package name resolves from the gateway's own dependencies,
 * a relative path from the config file's folder (and its `@switchyard/core`, when that folder has none,
 * from the gateway: `shareCoreWithPlugins`). The module default-exports `definePlugin(...)`.
 * With `running` (a reload), an entry whose specifier and options are unchanged keeps its running
 * instance; the others are set up anew.
 */
export async function loadPlugins(
  config: GatewayConfig,
  logger: Logger,
  store: Store,
  running?: RunningPlugins,
): Promise<LoadedPlugin[]> {
  const keys = new Map<PluginEntry, string>();
  const entries = await pluginEntries(config, (entry, key) => keys.set(entry, key));
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

/**
 * The config's plugin entries, each module imported (`PLUGIN_INVALID` naming the entry when it cannot
 * be); `keyed` learns the key a reload keeps a running instance by.
 */
export async function pluginEntries(
  config: GatewayConfig,
  keyed: (entry: PluginEntry, key: string) => void = () => {},
  importTimeoutMs = PLUGIN_IMPORT_TIMEOUT_MS,
): Promise<PluginEntry[]> {
  const entries: PluginEntry[] = [];
  for (const [i, { specifier, options }] of config.plugins.entries()) {
    const { local, target } = moduleTarget(config, specifier);
    if (local) shareCoreWithPlugins();
    let module: { default?: unknown; plugin?: unknown };
    try {
      module = (await importWithin(target, importTimeoutMs)) as { default?: unknown; plugin?: unknown };
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
    keyed(entry, entryKey(target, options));
    entries.push(entry);
  }
  return entries;
}

/** What `import()` is given for a specifier: a package name as is, a path as a file URL from the config's folder. */
function moduleTarget(config: GatewayConfig, specifier: string): { local: boolean; target: string } {
  const local = specifier.startsWith('.') || isAbsolute(specifier);
  return { local, target: local ? pathToFileURL(resolve(config.baseDir, specifier)).href : specifier };
}

function entryKey(target: string, options: unknown): string {
  return `${target}\n${canonical(options)}`;
}

/**
 * How long a plugin's module may take to load: one whose top-level `await` never settles left the gateway
 * (and `check`) exiting 0 saying nothing, or hanging past a SIGTERM, and a reload adding it blocked every
 * later reload.
 */
export const PLUGIN_IMPORT_TIMEOUT_MS = 30_000;

async function importWithin(target: string, timeoutMs: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`its module did not finish loading within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([import(target), late]);
  } finally {
    clearTimeout(timer);
  }
}
