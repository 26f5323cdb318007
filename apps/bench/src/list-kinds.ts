/**
 * The lists the bench enumerates, each described once: which method and result field, what identifies an
 * item, the testkit upstream that serves N of them, and exactly which items a full enumeration must return,
 * directly and through the gateway (the gateway exposes `<server>+<uri>` and `<server>__<tool>`).
 */
import type { UpstreamSpec } from './services.js';

export type ListName = 'resources' | 'tools';

export interface ListKind {
  name: ListName;
  method: 'resources/list' | 'tools/list';
  /** The result field holding the items. */
  field: 'resources' | 'tools';
  /** The field naming an item (a resource's uri, a tool's name). */
  key: 'uri' | 'name';
  /** The testkit upstream `server` serving `count` of these items, `pageSize` a page (0 = one page). */
  upstream(server: string, count: number, pageSize: number, latencyMs: number): UpstreamSpec;
  /** Item `i` of upstream `server` as the upstream lists it. */
  direct(server: string, i: number): string;
  /** Item `i` of upstream `server` as the gateway exposes it. */
  exposed(server: string, i: number): string;
}

export const RESOURCES: ListKind = {
  name: 'resources',
  method: 'resources/list',
  field: 'resources',
  key: 'uri',
  upstream: (name, count, pageSize, latencyMs) => ({ name, resources: count, pageSize, latencyMs }),
  direct: (server, i) => `test://${server}/r/${i}`,
  exposed: (server, i) => `${server}+test://${server}/r/${i}`,
};

/** Generated testkit echo tools `tool_0 … tool_{N-1}` (and no resources), exposed as `<server>__tool_<i>`. */
export const TOOLS: ListKind = {
  name: 'tools',
  method: 'tools/list',
  field: 'tools',
  key: 'name',
  upstream: (name, count, pageSize, latencyMs) => ({ name, resources: 0, tools: count, pageSize, latencyMs }),
  direct: (_server, i) => `tool_${i}`,
  exposed: (server, i) => `${server}__tool_${i}`,
};

export const LIST_KINDS: Record<ListName, ListKind> = { resources: RESOURCES, tools: TOOLS };

/** Every item `count` upstreams named `servers` must list, by exposed name → owning server. */
export function expectedExposed(
  kind: ListKind,
  servers: readonly string[],
  count: number,
): Map<string, string> {
  const owners = new Map<string, string>();
  for (const server of servers) for (let i = 0; i < count; i++) owners.set(kind.exposed(server, i), server);
  return owners;
}

/** The items one upstream must list directly. */
export function expectedDirect(kind: ListKind, server: string, count: number): Set<string> {
  return new Set(Array.from({ length: count }, (_, i) => kind.direct(server, i)));
}
