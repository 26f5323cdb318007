import { isAbsolute, resolve } from 'node:path';
import { DEFAULT_UPSTREAM_LIMITS, exposeName, type Logger, nameFilter } from '@switchyard/core';
import {
  definitionDigest,
  emptyLock,
  instructionsDigest,
  type LockFile,
  type PinKind,
  type PinnedDefinition,
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

/**
 * `switchyard pin`: connects once to every upstream and writes the lock file of the config's
 * `@switchyard/plugin-pin` with every tool and prompt definition they list (a server that fails keeps
 * its pins); with `approve`, pins only the tool or prompt exposed under that name. A running gateway
 * applies the rewritten file within 2 s. Resolves to the exit code: 0 done, 1 an upstream failed or
 * nothing is exposed under `approve`, 2 the config has no pin plugin or its options are invalid.
 */
export async function runPin(
  config: GatewayConfig,
  approve: string | undefined,
  out: (text: string) => void,
  err: (text: string) => void,
  logger?: Logger,
): Promise<number> {
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
        if (approve !== undefined) {
          if (!exposed(name) || exposeName(probe.name, name, upstream.prefix) !== approve) continue;
          approved.push(`${probe.name} ${kind === 'tools' ? 'tool' : 'prompt'} ${name}`);
        }
        lock = withPin(lock, probe.name, kind, name, definitionDigest(kind, definition));
        definitions.push({ kind, definition });
        pinned += 1;
      }
    }
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
