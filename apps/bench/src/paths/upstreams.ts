/**
 * The paths benchmark's four upstreams, one per transport, each serving the same resources and echo tools:
 * a stdio testkit (spawned by the gateway, and once more by the direct client), a legacy-only Streamable
 * HTTP testkit, a Streamable HTTP testkit with `--modern` (so the gateway picks the 2026-07-28 hop), and
 * the WebSocket host of ws-upstream.ts; and the floor proxy (floor-proxy.ts) in front of any of them.
 */
import { fileURLToPath } from 'node:url';
import type { ManagedProcess } from '@switchyard/testkit/process';
import { children, startUpstream, testkitCli } from '../services.js';
import type { PathsConfig, UpstreamKind } from './model.js';
import { UPSTREAM_NAMES } from './model.js';

/** Where each networked upstream listens (stdio has no address: it is spawned per client). */
export interface UpstreamEndpoints {
  'http-legacy'?: string;
  'http-modern'?: string;
  ws?: string;
}

export interface RunningUpstreams {
  endpoints: UpstreamEndpoints;
  procs: ManagedProcess[];
}

type Catalog = Pick<PathsConfig, 'resources' | 'payloadBytes' | 'tools'>;

/** The testkit arguments that give an upstream named `name` the benchmark's resources and tools. */
export function catalogArgs(name: string, config: Catalog): string[] {
  return [
    '--name',
    name,
    '--resources',
    String(config.resources),
    '--payload-bytes',
    String(config.payloadBytes),
    '--tools',
    String(config.tools),
  ];
}

/**
 * The gateway config's `mcpServers` for the upstreams in `kinds`: the stdio one as a command (the gateway
 * spawns it), the others by URL (`ws://` selects the WebSocket transport).
 */
export function gatewayServers(
  kinds: readonly UpstreamKind[],
  endpoints: UpstreamEndpoints,
  config: Catalog,
  testkit: string,
): Record<string, Record<string, unknown>> {
  const servers: Record<string, Record<string, unknown>> = {};
  for (const kind of kinds) {
    const name = UPSTREAM_NAMES[kind];
    if (kind === 'stdio') {
      servers[name] = { command: process.execPath, args: [testkit, '--stdio', ...catalogArgs(name, config)] };
    } else {
      const url = endpoints[kind];
      if (url === undefined) throw new Error(`no ${kind} upstream running`);
      servers[name] = { url };
    }
  }
  return servers;
}

/** Starts the networked upstreams among `kinds` (in parallel), each waited for via its ready line. */
export async function startUpstreams(
  kinds: readonly UpstreamKind[],
  config: Catalog,
): Promise<RunningUpstreams> {
  const endpoints: UpstreamEndpoints = {};
  const procs: ManagedProcess[] = [];
  const catalog = { resources: config.resources, payloadBytes: config.payloadBytes, tools: config.tools };
  await Promise.all(
    kinds.map(async (kind) => {
      if (kind === 'http-legacy' || kind === 'http-modern') {
        const up = await startUpstream({
          name: UPSTREAM_NAMES[kind],
          ...catalog,
          modern: kind === 'http-modern',
        });
        endpoints[kind] = up.url;
        procs.push(up.proc);
      } else if (kind === 'ws') {
        const { proc, ready } = await children.start({
          name: 'upstream ws',
          args: [
            fileURLToPath(new URL('./ws-upstream.js', import.meta.url)),
            ...catalogArgs(UPSTREAM_NAMES.ws, config),
          ],
          ready: {
            stream: 'stdout',
            line: (line) => (line.startsWith('{') ? (JSON.parse(line) as { url: string }).url : undefined),
          },
        });
        endpoints.ws = ready;
        procs.push(proc);
      }
    }),
  );
  return { endpoints, procs };
}

/** The floor proxy (floor-proxy.ts) in front of one upstream of the matrix. */
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
