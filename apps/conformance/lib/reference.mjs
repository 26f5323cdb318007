// The conformance repository's own reference server (examples/servers/typescript/everything-server.ts, an
// SDK v1 + express server), vendored at a pinned commit in ../reference-server (its README says from where
// and how to update it), a workspace package whose dependencies pnpm installs.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer } from './processes.mjs';

/** modelcontextprotocol/conformance at "chore: bump version to 0.2.0-alpha.11" (#448). */
export const REFERENCE_COMMIT = 'c321dd32035556e6769d3724a8ee97d87c3faaac';
/** The vendored server's folder, as in the conformance repository. */
export const REFERENCE_DIR = fileURLToPath(
  new URL('../reference-server/examples/servers/typescript', import.meta.url),
);
/** tsx compiles the server on its first start: give it longer than a built server. */
const START_TIMEOUT_MS = 30_000;
const LOOPBACK_PRELOAD = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'loopback.mjs')).href;

/** Why the vendored server cannot run here (its dependencies are not installed), or undefined. */
export function referenceServerMissing() {
  const { dependencies = {}, devDependencies = {} } = JSON.parse(
    readFileSync(join(REFERENCE_DIR, 'package.json'), 'utf8'),
  );
  const missing = Object.keys({ ...dependencies, ...devDependencies }).filter(
    (name) => !existsSync(join(REFERENCE_DIR, 'node_modules', name, 'package.json')),
  );
  if (missing.length === 0) return undefined;
  return {
    why: `its dependencies are not installed (${missing.join(', ')} missing from ${join(REFERENCE_DIR, 'node_modules')})`,
    how: 'npx -y pnpm@10.34.8 install (it is a workspace package: pnpm installs its dependencies from npm)',
  };
}

/**
 * The reference server: TypeScript through tsx's loader (its own devDependency), every listen pinned to
 * loopback by our preload, `PORT=0` for an ephemeral port. Resolves with `{ url, procs }`.
 */
export async function startReferenceServer(group) {
  const server = await startServer(group, {
    name: 'reference server',
    args: ['--import', 'tsx', '--import', LOOPBACK_PRELOAD, 'everything-server.ts'],
    ready: /switchyard-loopback: listening on (http:\/\/\S+)/,
    cwd: REFERENCE_DIR,
    env: { PORT: '0' },
    timeoutMs: START_TIMEOUT_MS,
  });
  // Its one listen is express's, which serves MCP at /mcp.
  return { ...server, url: `${server.url}/mcp` };
}
