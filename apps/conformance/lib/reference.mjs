// The conformance repository's own reference server (examples/servers/typescript/everything-server.ts, an
// SDK v1 + express server) at a pinned commit: its source fetched and its dependencies installed into a
// git-ignored cache, reused when present. Nothing of it is committed here: only the commit id and this.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** modelcontextprotocol/conformance at "chore: bump version to 0.2.0-alpha.11" (#448). */
export const REFERENCE_COMMIT = 'c321dd32035556e6769d3724a8ee97d87c3faaac';
export const REFERENCE_REPO = 'https://github.com/modelcontextprotocol/conformance';
/** The server's folder in that repository; the root tsconfig.json comes too (the server's extends it). */
export const SERVER_PATH = 'examples/servers/typescript';
const TARBALL = `https://codeload.github.com/modelcontextprotocol/conformance/tar.gz/${REFERENCE_COMMIT}`;
const DOWNLOAD_TIMEOUT_MS = 30_000;
const INSTALL_TIMEOUT_MS = 300_000;
const READY = '.switchyard-ready';

/** Runs a command; resolves with its output, rejects with the command, exit status and output tail. */
function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk).slice(-4_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')}: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited ${signal ?? code}: ${output.trim()}`));
    });
  });
}

/** `git archive` of the pinned commit's server folder out of a git dir or checkout, into `into`. */
async function fromGitRepo(repo, into) {
  try {
    await run('git', ['-C', repo, 'cat-file', '-e', `${REFERENCE_COMMIT}^{commit}`]);
  } catch {
    throw new Error(
      `SWITCHYARD_CONFORMANCE_REPO=${repo} is not a git repository holding commit ${REFERENCE_COMMIT} ` +
        `(git -C ${repo} fetch origin ${REFERENCE_COMMIT} brings it)`,
    );
  }
  const archive = join(into, 'source.tar');
  await run('git', [
    '-C',
    repo,
    'archive',
    '--format=tar',
    '-o',
    archive,
    REFERENCE_COMMIT,
    'tsconfig.json',
    SERVER_PATH,
  ]);
  await run('tar', ['-xf', archive, '-C', into]);
  rmSync(archive);
}

/** The pinned commit's tarball from GitHub (codeload), unpacked; its server folder moved into `into`. */
async function fromGitHub(into) {
  let response;
  try {
    response = await fetch(TARBALL, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  } catch (error) {
    throw new Error(`GitHub is not reachable (${TARBALL}: ${error.cause?.message ?? error.message})`);
  }
  if (!response.ok) throw new Error(`${TARBALL} answered HTTP ${response.status}`);
  const archive = join(into, 'source.tar.gz');
  writeFileSync(archive, Buffer.from(await response.arrayBuffer()));
  const unpacked = join(into, 'unpacked');
  mkdirSync(unpacked);
  await run('tar', ['-xzf', archive, '-C', unpacked]);
  const [top] = readdirSync(unpacked);
  if (top === undefined || !existsSync(join(unpacked, top, SERVER_PATH)))
    throw new Error(`${TARBALL} holds no ${SERVER_PATH}`);
  mkdirSync(join(into, 'examples', 'servers'), { recursive: true });
  renameSync(join(unpacked, top, SERVER_PATH), join(into, SERVER_PATH));
  renameSync(join(unpacked, top, 'tsconfig.json'), join(into, 'tsconfig.json'));
  rmSync(unpacked, { recursive: true, force: true });
  rmSync(archive);
}

/**
 * npm's own settings only: pnpm (`pnpm conformance`) exports npm_config_* variables of the monorepo
 * (local_prefix among them, which would make `npm ci` install into the monorepo's root).
 */
function npmEnv() {
  const kept = /^npm_config_(registry|cafile|ca|userconfig|cache|proxy|https_proxy|noproxy|strict_ssl)$/i;
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || kept.test(k)));
}

/**
 * The reference server's folder, ready to run: `<cacheRoot>/<commit>/examples/servers/typescript` with its
 * dependencies installed by `npm ci` from its own package-lock.json. Reused when a previous run finished
 * it. The source comes from `SWITCHYARD_CONFORMANCE_REPO` (a git dir or checkout of the conformance repo)
 * if set, else from GitHub. Resolves `{ dir, source }`, or `{ why, how }` when neither worked.
 */
export async function prepareReferenceServer(cacheRoot, log = () => {}) {
  const home = join(cacheRoot, REFERENCE_COMMIT);
  const dir = join(home, SERVER_PATH);
  if (existsSync(join(home, READY))) return { dir, source: `cached in ${home}` };

  // Build in a scratch folder and rename it into place when complete: a run stopped halfway leaves no
  // half-installed server behind. Folders of other (earlier pinned) commits are removed.
  mkdirSync(cacheRoot, { recursive: true });
  for (const entry of readdirSync(cacheRoot))
    rmSync(join(cacheRoot, entry), { recursive: true, force: true });
  const scratch = join(cacheRoot, `${REFERENCE_COMMIT}.partial-${process.pid}`);
  mkdirSync(scratch);
  const reasons = [];
  let source;
  const repo = process.env.SWITCHYARD_CONFORMANCE_REPO;
  try {
    if (repo) {
      try {
        await fromGitRepo(repo, scratch);
        source = `git archive of SWITCHYARD_CONFORMANCE_REPO=${repo}`;
      } catch (error) {
        reasons.push(error.message);
        rmSync(scratch, { recursive: true, force: true });
        mkdirSync(scratch);
      }
    } else {
      reasons.push('SWITCHYARD_CONFORMANCE_REPO is not set');
    }
    if (source === undefined) {
      try {
        await fromGitHub(scratch);
        source = TARBALL;
      } catch (error) {
        reasons.push(error.message);
      }
    }
    if (source === undefined) {
      return {
        why: reasons.join('; '),
        how:
          `set SWITCHYARD_CONFORMANCE_REPO to a git dir or checkout of ${REFERENCE_REPO} that has commit ` +
          `${REFERENCE_COMMIT} (git clone ${REFERENCE_REPO}), or run where codeload.github.com is reachable`,
      };
    }
    log(`reference server: ${source}; npm ci in ${join(home, SERVER_PATH)}`);
    try {
      await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
        cwd: join(scratch, SERVER_PATH),
        env: npmEnv(),
        timeoutMs: INSTALL_TIMEOUT_MS,
      });
    } catch (error) {
      return {
        why: `installing its dependencies failed: ${error.message}`,
        how: 'make the npm registry reachable (npm ci installs from its package-lock.json), then run again',
      };
    }
    writeFileSync(join(scratch, READY), `${source}\n`);
    renameSync(scratch, home);
    return { dir, source };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
