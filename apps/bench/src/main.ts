/**
 * Switchyard benchmark harness (`pnpm bench`; README.md describes every section, its table and its JSON):
 * runs the sections (sections.ts), prints the table on stdout and progress on stderr, writes the JSON.
 * The targets never change the exit code: only errors, wrong answers and wrong upstream counters do. Every
 * child process is stopped on exit, error or SIGINT (`children`, harness.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchArgs, parseBenchArgs, USAGE } from './args.js';
import { children, type RunOptions } from './harness.js';
import { msSince } from './measure.js';
import { type ProfileSummary, profileTree, renderProfile } from './profile.js';
import { environment, type RunInfo, renderTable } from './report/render.js';
import { type BenchResults, ranSections, runSections, SECTION_NAMES } from './sections.js';
import { sizes } from './sizes.js';

const DEFAULT_JSON = resolve(dirname(fileURLToPath(import.meta.url)), '../results/latest.json');

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

async function writeJson(path: string, data: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(data, null, 2)}\n`, 'utf8');
}

/**
 * Stops every child and service and removes the scratch dirs. One shared run: the SIGINT handler and
 * main's error path both call it, and a second call must not resolve (and exit) before the first one's
 * directories are removed (ProcessGroup forgets them before it deletes them).
 */
let stopping: Promise<void> | undefined;
const stopAll = (): Promise<void> => {
  stopping ??= children.stopAll();
  return stopping;
};

/** True once SIGINT/SIGTERM arrived (errors after that are consequences of the shutdown). */
let interrupted = false;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`\n[bench] ${signal}: stopping ${children.size} child process(es)\n`);
    void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

async function main(): Promise<number> {
  let args: BenchArgs;
  try {
    args = parseBenchArgs(SECTION_NAMES);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }

  const mode = args.quick ? 'quick' : 'full';
  const jsonPath = resolve(args.json ?? DEFAULT_JSON);
  const cpuProfDir = args.cpuProf === undefined ? undefined : resolve(args.cpuProf);
  if (cpuProfDir) await mkdir(cpuProfDir, { recursive: true });
  const options: RunOptions = { cpuProfDir, rawClient: args.client === 'raw' };
  const clientFetch = options.rawClient
    ? 'raw: lean JSON-RPC over Streamable HTTP on node:http, no result validation (--client raw)'
    : 'POSTs without the shared transport AbortSignal';
  const env = environment();
  const startedAt = new Date().toISOString();
  const start = process.hrtime.bigint();
  const run = (): RunInfo => ({ mode, startedAt, durationMs: msSince(start), env, clientFetch });
  log(`${mode} run, node ${env.node}, ${env.cpus} CPU(s)`);

  // Each benchmark's gateway profiles go to their own subdirectory of --cpu-prof DIR.
  const profileDirs = new Set<string>();
  const profiled = (what: string, summarized = true): RunOptions => {
    if (!cpuProfDir) return options;
    if (summarized) profileDirs.add(what);
    return { ...options, cpuProfDir: join(cpuProfDir, what) };
  };
  const results: BenchResults = { enumerate: [] };
  try {
    await runSections({ sizes: sizes(args.quick), log, profiled }, args.only, results);
  } catch (error) {
    if (interrupted) {
      await stopAll();
      return 130;
    }
    log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await stopAll();
    const message = error instanceof Error ? error.message : String(error);
    await writeJson(jsonPath, { ok: false, ...run(), error: message, ...results }).catch(() => undefined);
    return 1;
  } finally {
    await stopAll();
  }

  const ran = run();
  const targets = ranSections(results).flatMap((ran) => ran.goals());
  // Profiles are written when the gateways exit, i.e. after stopAll().
  const profiles: Record<string, ProfileSummary[]> = {};
  for (const what of cpuProfDir ? profileDirs : [])
    Object.assign(profiles, await profileTree(cpuProfDir!, what));
  await writeJson(jsonPath, {
    ok: true,
    ...ran,
    ...results,
    targets,
    cpuProfDir,
    profiles: cpuProfDir ? profiles : undefined,
  });
  process.stdout.write(`${renderTable({ ...ran, results, targets, jsonPath })}\n`);
  for (const [what, summaries] of Object.entries(profiles)) {
    for (const summary of summaries) {
      process.stdout.write(
        `\n${renderProfile(`Gateway CPU profile (${what} benchmark)`, summary).join('\n')}`,
      );
    }
  }
  return 0;
}

// Exit explicitly: idle keep-alive sockets must not hold the process open (stdout is synchronous for
// files, pipes and TTYs on Linux, so nothing printed is lost).
main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await stopAll();
    process.exit(1);
  },
);
