import type { Cleanup } from '@switchyard/testkit';
import { type GatewayProcess, startGateway } from './harness.js';

/** A gateway CLI with an admin listener on an ephemeral port; resolves once both listeners announce. */
export async function startAdminGateway(
  cleanup: Cleanup,
  config: Record<string, unknown>,
  options: { env?: NodeJS.ProcessEnv; groups?: string[] } = {},
): Promise<{ gw: GatewayProcess; admin: string }> {
  const listen = (config.listen ?? {}) as Record<string, unknown>;
  const gw = await startGateway(
    cleanup,
    {
      ...config,
      listen: {
        http: { host: '127.0.0.1', port: 0, path: '/mcp' },
        ...listen,
        admin: { host: '127.0.0.1', port: 0, ...(options.groups ? { groups: options.groups } : {}) },
      },
    },
    { env: options.env },
  );
  const admin = (await gw.waitForLine(/admin listening on (http:\/\/\S+)/))[1]!;
  return { gw, admin };
}

/** GETs an admin path; `token` goes in `Authorization: Bearer`. */
export async function adminGet(
  base: string,
  path: string,
  token?: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(new URL(path, base), {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}
