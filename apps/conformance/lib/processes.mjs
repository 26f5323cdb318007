// The two servers under test: the fixture over HTTP (direct) and the gateway fronting it over stdio.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const START_TIMEOUT_MS = 20_000;

/**
 * Spawns `node args…` and resolves with `{ child, url, stop }` once `findUrl(stdout, stderr)` sees the
 * URL it serves; rejects (and kills the child) if it exits or stays silent for 20 s.
 */
function startServer(what, args, findUrl) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
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
    const check = () => {
      const url = findUrl(stdout, stderr);
      if (url === undefined) return;
      clearTimeout(timer);
      resolve({ child, url, stop, stderr: () => stderr });
    };
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      check();
    });
    child.stderr.on('data', (chunk) => {
      // Keep only the tail: a long run logs a lot and only the last lines help when something breaks.
      stderr = (stderr + chunk).slice(-20_000);
      check();
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${signal ?? code}):\n${stderr}`));
    });
  });
}

/** The fixture served over Streamable HTTP on an ephemeral loopback port (it prints `{"url": …}`). */
export function startFixtureHttp(fixtureCli) {
  return startServer('conformance fixture', [fixtureCli, '--http'], (stdout) => {
    const line = stdout.split('\n').find((l) => l.startsWith('{'));
    if (line === undefined) return undefined;
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
    (_stdout, stderr) => /listening on (http:\/\/\S+)/.exec(stderr)?.[1],
  );
}
