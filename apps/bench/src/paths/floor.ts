/** Starts the floor proxy (floor-proxy.ts) in front of one upstream of the matrix. */
import { fileURLToPath } from 'node:url';
import type { ManagedProcess } from '@switchyard/testkit/process';
import { children, testkitCli } from '../services.js';
import type { PathsConfig, UpstreamKind } from './model.js';
import { UPSTREAM_NAMES } from './model.js';
import { catalogArgs, type UpstreamEndpoints } from './upstreams.js';

export interface Floor {
  proc: ManagedProcess;
  url: string;
}

/** The floor in front of `upstream`: a stdio upstream is spawned by it, a networked one is reached at its URL. */
export async function startFloor(
  upstream: UpstreamKind,
  endpoints: UpstreamEndpoints,
  config: Pick<PathsConfig, 'resources' | 'payloadBytes' | 'tools'>,
): Promise<Floor> {
  const script = fileURLToPath(new URL('./floor-proxy.js', import.meta.url));
  const target =
    upstream === 'stdio'
      ? ['stdio', process.execPath, testkitCli(), '--stdio', ...catalogArgs(UPSTREAM_NAMES.stdio, config)]
      : [upstream === 'ws' ? 'ws' : 'http', endpointOf(upstream, endpoints)];
  const { proc, ready } = await children.start({
    name: `floor proxy (${upstream})`,
    args: [script, ...target],
    ready: { stream: 'stdout', line: (line) => /^listening (\d+)$/.exec(line)?.[1] },
  });
  return { proc, url: `http://127.0.0.1:${ready}/mcp` };
}

function endpointOf(upstream: UpstreamKind, endpoints: UpstreamEndpoints): string {
  const url = upstream === 'stdio' ? undefined : endpoints[upstream];
  if (url === undefined) throw new Error(`no ${upstream} upstream running for the floor proxy`);
  return url;
}
