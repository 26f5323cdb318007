// The reference server's processes: the server itself (run with tsx, on loopback, on an ephemeral port)
// and a gateway fronting one over Streamable HTTP with `"prefix": false`.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const START_TIMEOUT_MS = 30_000;
const LOOPBACK_PRELOAD = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'loopback.mjs')).href;

/**
 * Spawns `node args…` (in `cwd`) and resolves `{ child, url, stop, stderr }` once `pattern` matches its
 * stderr (group 1 is the URL); rejects, and stops it, if it exits first or stays silent too long.
 */
function startProcess(what, args, pattern, { cwd, env } = {}) {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let started = false;
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        resolve();
        return;
      }
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${what} did not start within ${START_TIMEOUT_MS / 1000} s:\n${stderr}`));
    }, START_TIMEOUT_MS);
    const onExit = (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${signal ?? code}):\n${stderr}`));
    };
    child.once('exit', onExit);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      // Only the tail: a long run logs a lot, and only the last lines help when something breaks.
      stderr = (stderr + chunk).slice(-20_000);
      const url = started ? undefined : pattern.exec(stderr)?.[1];
      if (url === undefined) return;
      started = true;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ child, url, stop, stderr: () => stderr });
    });
  });
}

/**
 * The reference server from its prepared folder (`dir`, see reference.mjs): TypeScript through tsx's
 * loader, every listen pinned to loopback by our preload, `PORT=0` for an ephemeral port.
 */
export async function startReferenceServer(dir) {
  const server = await startProcess(
    'reference server',
    ['--import', 'tsx', '--import', LOOPBACK_PRELOAD, 'everything-server.ts'],
    /switchyard-loopback: listening on (http:\/\/\S+)/,
    { cwd: dir, env: { PORT: '0' } },
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
  return startProcess(
    `gateway fronting the ${name} server`,
    [gatewayCli, '--config', configFile],
    /listening on (http:\/\/\S+)/,
  );
}
