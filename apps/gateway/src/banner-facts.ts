import type { Identity } from '@switchyard/core';
import { connectInMemoryClient } from '@switchyard/core/testing';
import type { BannerFacts, ExposedCounts } from './banner.js';
import type { RunningGateway } from './run.js';
import { SWITCHYARD_VERSION } from './version.js';

/** Who lists the catalog for the banner: plugins (access, audit) see this identity. */
const BANNER_IDENTITY: Identity = { id: 'switchyard-banner', groups: [], anonymous: false };

/** How long the banner waits for the four lists before it shows the upstreams without counts. */
const LIST_TIMEOUT_MS = 5000;

type Kind = keyof ExposedCounts;

/**
 * Gathers the banner's facts from a running gateway. The counts come from the gateway's own merged lists
 * (an in-process session as `switchyard-banner`), so they are what clients see: after curation, access
 * rules and pins. A list that fails leaves the counts out.
 */
export async function collectBannerFacts(running: RunningGateway, readyMs: number): Promise<BannerFacts> {
  const { gateway } = running;
  const status = gateway.status();
  const listeners = [
    ...(running.http ? [{ kind: 'http', url: running.http.url }] : []),
    ...(running.ws ? [{ kind: 'ws', url: running.ws.url }] : []),
    ...(running.stdioClosed ? [{ kind: 'stdio', url: 'stdio' }] : []),
  ];
  const counts = await countExposed(running, status).catch(() => undefined);
  return {
    version: SWITCHYARD_VERSION,
    readyMs,
    listeners,
    adminUrl: running.admin?.url,
    upstreams: status.map((u) =>
      u.state === 'ready'
        ? { name: u.name, state: u.state, counts: counts?.get(u.name) }
        : { name: u.name, state: u.state, error: u.lastError },
    ),
  };
}

async function countExposed(
  running: RunningGateway,
  status: { name: string; prefix: boolean }[],
): Promise<Map<string, ExposedCounts>> {
  const { client, close } = await connectInMemoryClient(running.gateway, { identity: BANNER_IDENTITY });
  try {
    const options = { timeout: LIST_TIMEOUT_MS, cacheMode: 'bypass' as const };
    const caps = client.getServerCapabilities() ?? {};
    const [tools, prompts, resources, templates] = await Promise.all([
      caps.tools ? client.listTools(undefined, options).then((r) => r.tools.map((t) => t.name)) : [],
      caps.prompts ? client.listPrompts(undefined, options).then((r) => r.prompts.map((t) => t.name)) : [],
      client.listResources(undefined, options).then((r) => r.resources.map((x) => x.uri)),
      client
        .listResourceTemplates(undefined, options)
        .then((r) => r.resourceTemplates.map((x) => x.uriTemplate)),
    ]);
    const owner = ownerOf(running, status);
    const counts = new Map<string, ExposedCounts>(
      status.map((u) => [u.name, { tools: 0, prompts: 0, resources: 0, templates: 0 }]),
    );
    const add = (kind: Kind, names: string[], separator: string) => {
      for (const name of names) {
        const entry = counts.get(owner(name, separator, kind) ?? '');
        if (entry) entry[kind] += 1;
      }
    };
    add('tools', tools, '__');
    add('prompts', prompts, '__');
    add('resources', resources, '+');
    add('templates', templates, '+');
    return counts;
  } finally {
    await close();
  }
}

/**
 * The upstream an exposed name or URI belongs to: the router's answer for a resource, else the
 * `<server>__` / `<server>+` prefix; an unprefixed one belongs to the only `"prefix": false` server.
 */
function ownerOf(running: RunningGateway, status: { name: string; prefix: boolean }[]) {
  const prefixed = new Set(status.filter((u) => u.prefix).map((u) => u.name));
  const unprefixed = status.filter((u) => !u.prefix);
  return (name: string, separator: string, kind: Kind): string | undefined => {
    if (kind === 'resources') {
      const routed = running.gateway.route(name)?.upstream;
      if (routed !== undefined) return routed;
    }
    const at = name.indexOf(separator);
    const server = at > 0 ? name.slice(0, at) : undefined;
    if (server !== undefined && prefixed.has(server)) return server;
    return unprefixed.length === 1 ? unprefixed[0]!.name : undefined;
  };
}
