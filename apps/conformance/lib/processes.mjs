// The two servers under test: the fixture over HTTP (direct) and the gateway fronting it over stdio.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess } from '@switchyard/testkit/process';

/**
 * Spawns `node args…` (in `cwd`, with `env` over ours) and resolves with `{ child, url, stop, stderr }`
 * once `ready` (a line matcher on `stream`) gives the URL it serves; rejects (and kills the child) if it
 * exits first or stays silent for `timeoutMs` (20 s), with its last output.
 */
export async function startServer(name, args, stream, ready, { cwd, env, timeoutMs } = {}) {
  // Keep only the tail: a long run logs a lot and only the last lines help when something breaks.
  const { proc, ready: url } = await startProcess({
    name,
    args,
    cwd,
    env,
    keepChars: 20_000,
    ready: { stream, line: ready, timeoutMs },
  });
  return { child: proc.child, url, stop: () => proc.stop(), stderr: () => proc.stderr() };
}

/** The fixture served over Streamable HTTP on an ephemeral loopback port (it prints `{"url": …}`). */
export function startFixtureHttp(fixtureCli) {
  return startServer('conformance fixture', [fixtureCli, '--http'], 'stdout', (line) => {
    if (!line.startsWith('{')) return undefined;
    try {
      return JSON.parse(line).url;
    } catch {
      return undefined;
    }
  });
}

/**
 * The gateway on an ephemeral HTTP port, fronting the fixture spawned over stdio with `"prefix": false`
 * (names and URIs unchanged, so the suite's expectations hold through it).
 */
export function startGateway(gatewayCli, fixtureCli, dir) {
  const configFile = join(dir, 'switchyard.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      logLevel: 'info',
      mcpServers: {
        fixture: { command: process.execPath, args: [fixtureCli, '--stdio'], prefix: false },
      },
    }),
  );
  return startServer(
    'gateway',
    [gatewayCli, '--config', configFile],
    'stderr',
    (line) => /listening on (http:\/\/\S+)/.exec(line)?.[1],
  );
}
