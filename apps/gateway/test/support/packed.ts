import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// The published packages as their users get them: `pnpm pack` tarballs (workspace:* rewritten to
// versions), installed with plain npm into an empty project.

const run = promisify(execFile);
export const REPO = fileURLToPath(new URL('../../../../', import.meta.url));

interface Manifest {
  name: string;
  private?: boolean;
  [field: string]: unknown;
}

function manifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** Every workspace package that is published (not `private`), by name. */
export function publishedPackages(): string[] {
  const names: string[] = [];
  for (const parent of ['packages', 'apps']) {
    for (const entry of readdirSync(join(REPO, parent), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const pkg = manifest(join(REPO, parent, entry.name));
      if (!pkg.private) names.push(pkg.name);
    }
  }
  return names.sort();
}

/** The pnpm the repo pins (`packageManager`), run through npx as the README and .ci/run do. */
function pnpm(): { command: string; args: string[] } {
  const pinned = manifest(REPO).packageManager as string;
  return { command: 'npx', args: ['-y', pinned] };
}

/** Packs `names` from their built dist/ into `destination` with one `pnpm -r pack`; returns the tarball paths. */
export async function packAll(names: string[], destination: string, timeoutMs: number): Promise<string[]> {
  await mkdir(destination, { recursive: true });
  const { command, args } = pnpm();
  const filters = names.flatMap((name) => ['--filter', name]);
  await run(command, [...args, '-r', ...filters, 'pack', '--pack-destination', destination], {
    cwd: REPO,
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
  });
  return readdirSync(destination)
    .filter((file) => file.endsWith('.tgz'))
    .map((file) => join(destination, file));
}

/**
 * `npm install` of every tarball at once into an empty project: npm then resolves the packages'
 * dependencies on each other to those tarballs, and everything else from the registry.
 */
export async function npmInstall(project: string, tarballs: string[], timeoutMs: number): Promise<void> {
  await mkdir(project, { recursive: true });
  await writeFile(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'switchyard-pack-probe', private: true, type: 'module' }, null, 2)}\n`,
  );
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], {
    cwd: project,
    env: userEnv(),
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
  });
}

/**
 * This environment without the `npm_*` variables pnpm and npm set for the scripts they run (the test
 * command runs under pnpm): npm in the temp project runs as a user's would.
 */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  return { ...env, ...extra };
}

/** Runs a Node ES module `source` in `cwd` (so bare imports resolve from that project's node_modules). */
export async function nodeEval(cwd: string, source: string, timeoutMs = 30_000): Promise<string> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source], {
    cwd,
    timeout: timeoutMs,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return stdout;
}

/** `npx <args>` in `cwd`, never fetching from the registry: it must find the project's own install. */
export async function npxLocal(cwd: string, args: string[], timeoutMs = 30_000) {
  return run('npx', args, { cwd, timeout: timeoutMs, env: userEnv({ npm_config_yes: 'false' }) });
}
