import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListenerConfig } from '../config/load.js';

/** Binds `server` as configured; resolves with the bound port and the listener's URL for `scheme`. */
export async function listen(
  server: Server,
  config: ListenerConfig,
  scheme: 'http' | 'ws',
): Promise<{ port: number; url: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return { port, url: `${scheme}://${host}:${port}${config.path}` };
}
