import { DEFAULT_UPSTREAM_LIMITS, type Logger } from '@switchyard/core';
import type { GatewayConfig } from '../config/load.js';
import { allOk, probeUpstreams } from './probe.js';
import { renderCheckTable, summarize } from './table.js';

/**
 * `switchyard check`: connects once to every upstream of a valid config, all at once, and writes the
 * table of what each exposes to `out`. Resolves to the exit code: 0 when every upstream is fine, 1 when
 * any failed.
 */
export async function runCheck(
  config: GatewayConfig,
  out: (text: string) => void,
  logger?: Logger,
): Promise<number> {
  const probes = await probeUpstreams(config.upstreams, logger, {
    ...DEFAULT_UPSTREAM_LIMITS,
    ...config.limits,
  });
  out(`${renderCheckTable(probes)}\n${summarize(probes)}\n`);
  return allOk(probes) ? 0 : 1;
}
