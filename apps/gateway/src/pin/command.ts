import { isAbsolute, resolve } from 'node:path';
import { DEFAULT_UPSTREAM_LIMITS, exposeName, type Logger, nameFilter } from '@switchyard/core';
import {
  DIGEST_PATTERN,
  definitionDigest,
  emptyLock,
  instructionsDigest,
  type LockFile,
  type PinKind,
  type PinnedDefinition,
  pinnedPart,
  readLock,
  resolvePinOptions,
  updateDefinitions,
  withPin,
  writeLock,
} from '@switchyard/plugin-pin/lock';
import { probeUpstreams } from '../check/probe.js';
import type { GatewayConfig } from '../config/load.js';

const PIN_PLUGIN = '@switchyard/plugin-pin';
const KINDS: readonly PinKind[] = ['tools', 'prompts'];

/** `--approve <exposed name>`, and `--digest`: the digest of the definition the admin reviewed. */
export interface PinApproval {
  name: string;
  digest?: string | undefined;
}

/**
 * `switchyard pin`: connects once to every upstream and writes the lock file of the config's
 * `@switchyard/plugin-pin` with every tool and prompt definition they list (a server that fails keeps
 * its pins); with `approve`, pins only the tool or prompt exposed under that name, as listed now (the
 * output names its digest), and given `approve.digest` only a definition of that digest: one listed
 * with another is printed for review, not pinned. A running gateway applies the rewritten file within
 * 2 s. Resolves to the exit code: 0 done, 1 an upstream failed, nothing is exposed under `approve` or
 * not with that digest, 2 the config has no pin plugin, its options are invalid or the digest is not one.
 */
export async function runPin(
  config: GatewayConfig,
  approval: PinApproval | undefined,
  out: (text: string) => void,
  err: (text: string) => void,
  logger?: Logger,
): Promise<number> {
  const approve = approval?.name;
  const expected = approval?.digest;
  if (expected !== undefined && !DIGEST_PATTERN.test(expected)) {
    err(`switchyard pin: --digest must be sha256: and 64 lowercase hex digits, as /admin/status shows it\n`);
    return 2;
  }
  const entry = config.plugins.find((p) => p.specifier === PIN_PLUGIN);
  if (entry === undefined) {
    err(`switchyard pin: the config lists no ${PIN_PLUGIN} in "plugins" (it names the lock file)\n`);
    return 2;
  }
  let file: string;
  let lock: LockFile;
  try {
    const { lockFile } = resolvePinOptions(entry.options);
    file = isAbsolute(lockFile) ? lockFile : resolve(config.baseDir, lockFile);
    lock = (await readLock(file)) ?? emptyLock();
  } catch (error) {
    err(`switchyard pin: ${(error as Error).message}\n`);
    return 2;
  }
  const probes = await probeUpstreams(
    config.upstreams,
    logger,
    {
      ...DEFAULT_UPSTREAM_LIMITS,
      ...config.limits,
    },
    { definitions: true },
  );
  let failed = 0;
  let pinned = 0;
  const approved: string[] = [];
  // Listed under `approve` with another digest than `expected`: shown for review, not pinned.
  const other: {
    what: string;
    kind: PinKind;
    digest: string;
    definition: Readonly<Record<string, unknown>>;
  }[] = [];
  const definitions: PinnedDefinition[] = [];
  for (const probe of probes) {
    if (!probe.ok || probe.definitions === undefined) {
      failed += 1;
      err(
        `switchyard pin: ${probe.name}: ${probe.ok ? 'listed nothing' : probe.error} (its pins are kept)\n`,
      );
      continue;
    }
    const upstream = config.upstreams.find((u) => u.name === probe.name)!;
    if (approve === undefined) {
      lock = {
        version: 1,
        servers: {
          ...lock.servers,
          [probe.name]: {
            // The gateway does not pass upstream instructions on to clients (it has its own), so only
            // this command pins them, for the record; a running gateway does not judge them yet.
            ...(probe.definitions.instructions === undefined
              ? {}
              : { instructions: instructionsDigest(probe.definitions.instructions) }),
            tools: {},
            prompts: {},
          },
        },
      };
    }
    for (const kind of KINDS) {
      const exposed = nameFilter(upstream[kind]);
      for (const definition of probe.definitions[kind]) {
        const name = definition.name;
        if (typeof name !== 'string') continue;
        const digest = definitionDigest(kind, definition);
        if (approve !== undefined) {
          if (!exposed(name) || exposeName(probe.name, name, upstream.prefix) !== approve) continue;
          const what = `${probe.name} ${kind === 'tools' ? 'tool' : 'prompt'} ${name}`;
          if (expected !== undefined && digest !== expected) {
            other.push({ what, kind, digest, definition });
            continue;
          }
          approved.push(`${what} ${digest}`);
        }
        lock = withPin(lock, probe.name, kind, name, digest);
        definitions.push({ kind, definition });
        pinned += 1;
      }
    }
  }
  if (approve !== undefined && approved.length === 0 && other.length > 0) {
    // The upstream lists another definition than the one reviewed: show it, pin nothing.
    for (const { what, kind, digest, definition } of other) {
      err(
        `switchyard pin: ${approve} (${what}) is listed now as ${digest}, not ${expected}: it changed after it was reviewed, and nothing was pinned. What is listed now, to review (then --digest ${digest}):\n${JSON.stringify(pinnedPart(kind, definition), null, 2)}\n`,
      );
    }
    return 1;
  }
  if (approve !== undefined && approved.length === 0) {
    err(
      `switchyard pin: no tool or prompt is exposed as '${approve}'${failed > 0 ? ' by the upstreams that answered' : ''}\n`,
    );
    return 1;
  }
  // The pinned definitions first (for the status page's diff): a gateway applying the new lock file
  // finds them beside it. Failing to write them costs only the diff.
  await updateDefinitions(file, lock, definitions).catch((error: unknown) =>
    err(
      `switchyard pin: the pinned definitions were not written (no diff on the status page): ${String(error)}\n`,
    ),
  );
  await writeLock(file, lock);
  out(
    approve === undefined
      ? `pinned ${pinned} tools and prompts of ${probes.length - failed} servers in ${file}\n`
      : `approved ${approve} (${approved.join(', ')}) in ${file}\n`,
  );
  return failed > 0 && approve === undefined ? 1 : 0;
}
