import {
  checkPlugins,
  DEFAULT_UPSTREAM_LIMITS,
  isPersonal,
  type Logger,
  PluginError,
} from '@switchyard/core';
import type { GatewayConfig } from '../config/load.js';
import { pluginEntries } from '../plugins.js';
import { allOk, probeUpstreams } from './probe.js';
import { renderCheckTable, summarize } from './table.js';
import { renderVirtualServers } from './virtual-servers.js';

/**
 * `switchyard check`: loads the plugins and checks them as a start would (metadata and options; no
 * `setup` runs), then connects once to every upstream of a valid config, all at once, and writes the
 * table of what each exposes to `out` (and, with virtual servers, what each of them exposes); a personal
 * upstream (`auth.user`) is named but not probed. Resolves to the exit code: 2 when a plugin would stop
 * the start, else 0 when every probed upstream is fine, 1 when any failed.
 */
export async function runCheck(
  config: GatewayConfig,
  out: (text: string) => void,
  logger?: Logger,
  fail: (text: string) => void = out,
): Promise<number> {
  try {
    checkPlugins(await pluginEntries(config));
  } catch (error) {
    if (!(error instanceof PluginError)) throw error;
    fail(`switchyard: plugin error (${error.code}): ${error.message}\n`);
    return 2;
  }
  const virtualServers = config.virtualServers ?? new Map();
  // A personal upstream answers only a person's own token: there is nothing to probe without one.
  const personal = config.upstreams.filter(isPersonal);
  const probed = config.upstreams.filter((u) => !personal.includes(u));
  const probes = await probeUpstreams(
    probed,
    logger,
    { ...DEFAULT_UPSTREAM_LIMITS, ...config.limits },
    { definitions: virtualServers.size > 0 },
  );
  out(`${renderCheckTable(probes)}\n${summarize(probes)}\n`);
  for (const u of personal) {
    out(
      `${u.name}: not probed: it acts as each person with their own account (auth.user); people connect at their first call or on the status page\n`,
    );
  }
  if (virtualServers.size > 0) {
    out(`\n${renderVirtualServers(virtualServers, config.upstreams, probes, config.toolSearch)}\n`);
  }
  return allOk(probes) ? 0 : 1;
}
