import { networkInterfaces } from 'node:os';

const WILDCARD = new Set(['0.0.0.0', '::', '']);

/**
 * Where the other replicas reach this HTTP listener: `advertise` when configured, else the bound
 * address, or, bound to a wildcard address, the machine's first non-internal IPv4 (a pod's IP in
 * Kubernetes).
 */
export function advertisedUrl(listener: { host: string; advertise?: string }, port: number): string {
  if (listener.advertise) return new URL(listener.advertise).origin;
  let host = listener.host;
  if (WILDCARD.has(host)) host = firstExternalIPv4() ?? '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function firstExternalIPv4(): string | undefined {
  for (const addresses of Object.values(networkInterfaces()))
    for (const address of addresses ?? [])
      if (address.family === 'IPv4' && !address.internal) return address.address;
  return undefined;
}
