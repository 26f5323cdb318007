// The reference server's processes: the server itself (run with tsx, on loopback, on an ephemeral port)
// and a gateway fronting one over Streamable HTTP with `"prefix": false`.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { startServer } from './processes.mjs';

/** tsx compiles the server on its first start: give it longer than a built server. */
const START_TIMEOUT_MS = 30_000;
const LOOPBACK_PRELOAD = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'loopback.mjs')).href;

/**
 * The reference server from its prepared folder (`dir`, see reference.mjs): TypeScript through tsx's
 * loader, every listen pinned to loopback by our preload, `PORT=0` for an ephemeral port.
 */
export async function startReferenceServer(dir) {
  const server = await startServer(
    'reference server',
    ['--import', 'tsx', '--import', LOOPBACK_PRELOAD, 'everything-server.ts'],
    'stderr',
    (line) => /switchyard-loopback: listening on (http:\/\/\S+)/.exec(line)?.[1],
    { cwd: dir, env: { PORT: '0' }, timeoutMs: START_TIMEOUT_MS },
  );
  // Its one listen is express's, which serves MCP at /mcp.
  return { ...server, url: `${server.url}/mcp` };
}

/** The gateway on an ephemeral loopback HTTP port fronting `upstreamUrl` with `"prefix": false`. */
export function startGatewayFronting(gatewayCli, upstreamUrl, dir, name) {
  const configFile = join(dir, `switchyard-${name}.json`);
  writeFileSync(
    configFile,
    JSON.stringify({
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      logLevel: 'info',
      mcpServers: { [name]: { url: upstreamUrl, prefix: false } },
    }),
  );
  return startServer(
    `gateway fronting the ${name} server`,
    [gatewayCli, '--config', configFile],
    'stderr',
    (line) => /listening on (http:\/\/\S+)/.exec(line)?.[1],
  );
}
