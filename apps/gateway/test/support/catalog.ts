import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { type Cleanup, connectHttp, httpUpstream } from './harness.js';
import { connectModernHttp, connectWs, downUrl, type Json, startEverywhere, stdioUpstream } from './named.js';

// The catalogue the tools and prompts end-to-end tests share: one gateway CLI process (stdio + HTTP +
// WebSocket) in front of a legacy HTTP testkit ("web"), a stdio testkit child ("local"), a modern
// (2026-07-28) HTTP testkit ("mod"), an upstream that never comes up ("down") and a stdio upstream
// whose one tool shows `_meta` ("meta"); and a client of each downstream transport and era.

const META_UPSTREAM = fileURLToPath(new URL('../fixtures/meta-upstream.js', import.meta.url));

export async function startCatalog(cleanup: Cleanup) {
  const web = await httpUpstream(cleanup, {
    name: 'web',
    resources: 3,
    tools: 5,
    prompts: 3,
    pageSize: 2,
    behaviorTools: true,
  });
  const mod = await httpUpstream(cleanup, { name: 'mod', modern: true, resources: 1, tools: 2, prompts: 1 });
  const local = await stdioUpstream(cleanup, 'local', [
    ...['--resources', '1', '--tools', '3', '--prompts', '2', '--page-size', '2'],
  ]);
  const gw = await startEverywhere(cleanup, {
    web: { url: web.url },
    local: local.config,
    mod: { url: mod.url },
    down: { url: await downUrl(cleanup) },
    meta: { command: process.execPath, args: [META_UPSTREAM] },
  });
  // A direct client of "web", to compare what the gateway passes through with what the upstream said.
  const direct = await connectHttp(cleanup, web.url, 'direct');
  return { web, mod, local, gw, direct };
}

export type Catalog = Awaited<ReturnType<typeof startCatalog>>;

/** A client of each downstream transport and era, by name (`cleanup` closes the ones it opens). */
export function catalogClients(
  cleanup: Cleanup,
  catalog: () => Catalog,
): Record<string, () => Promise<Client>> {
  return {
    'HTTP legacy': () => connectHttp(cleanup, catalog().gw.httpUrl, 'http-legacy'),
    'HTTP modern': () => connectModernHttp(cleanup, catalog().gw.httpUrl),
    stdio: async () => catalog().gw.stdio,
    WebSocket: () => connectWs(cleanup, catalog().gw.wsUrl),
  };
}

/**
 * A modern client's results also carry the modern-only fields and the reserved `io.modelcontextprotocol/`
 * envelope keys of `_meta` (the gateway's serverInfo); the rest must equal what the upstream said.
 */
export function withoutModernFields(result: Json): Json {
  const { resultType: _r, ttlMs: _t, cacheScope: _c, _meta, ...rest } = result;
  const meta = Object.entries((_meta as Json | undefined) ?? {}).filter(
    ([key]) => !key.startsWith('io.modelcontextprotocol/'),
  );
  return meta.length === 0 ? rest : { ...rest, _meta: Object.fromEntries(meta) };
}
