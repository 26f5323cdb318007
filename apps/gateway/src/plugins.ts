import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type LoadedPlugin, type Logger, PluginError, setupPlugins } from '@switchyard/core';
import type { GatewayConfig } from './config/load.js';

/**
 * Loads the config's plugins in order: a package name resolves from the gateway's own dependencies,
 * a relative path from the config file's folder. The module default-exports `definePlugin(...)`.
 */
export async function loadPlugins(config: GatewayConfig, logger: Logger): Promise<LoadedPlugin[]> {
  const entries = [];
  for (const [i, { specifier, options }] of config.plugins.entries()) {
    const local = specifier.startsWith('.') || isAbsolute(specifier);
    const target = local ? pathToFileURL(resolve(config.baseDir, specifier)).href : specifier;
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
    entries.push({ plugin: module.default ?? module.plugin, options, source: specifier });
  }
  return setupPlugins(entries, logger, { baseDir: config.baseDir });
}
