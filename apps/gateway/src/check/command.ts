import { DEFAULT_UPSTREAM_LIMITS, type Logger } from '@switchyard/core';
import type { GatewayConfig } from '../config/load.js';
import { allOk, probeUpstreams } from './probe.js';
import { renderCheckTable, summarize } from './table.js';
import { renderVirtualServers } from './virtual-servers.js';

/**
 * `switchyard check`: connects once to every upstream of a valid config, all at once, and writes the
 * table of what each exposes to `out` (and, with virtual servers, what each of them exposes). Resolves to the exit code: 0 when every upstream is fine, 1 when
 * any failed.
 */
export async function runCheck(
  config: GatewayConfig,
  out: (text: string) => void,
  logger?: Logger,
): Promise<number> {
  const virtualServers = config.virtualServers ?? new Map();
  const probes = await probeUpstreams(
    config.upstreams,
    logger,
    { ...DEFAULT_UPSTREAM_LIMITS, ...config.limits },
    { definitions: virtualServers.size > 0 },
  );
  out(`${renderCheckTable(probes)}\n${summarize(probes)}\n`);
  if (virtualServers.size > 0) {
    out(`\n${renderVirtualServers(virtualServers, config.upstreams, probes, config.toolSearch)}\n`);
  }
  return allOk(probes) ? 0 : 1;
}
