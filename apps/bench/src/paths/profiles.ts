/**
 * `--cpu-prof` for the paths benchmark: each chosen path runs again against a fresh gateway under
 * `node --cpu-prof` (the timed matrix never runs profiled), and the profile's top self-time frames are kept.
 */
import { join } from 'node:path';
import { summarizeProfiles } from '../profile.js';
import { methodLoop, targetsOf } from '../requests.js';
import { startGateway } from '../services.js';
import { PathClients } from './clients.js';
import type { PathCell, PathsConfig } from './model.js';
import { UPSTREAM_NAMES } from './model.js';

/** Frames kept per profile. */
export const PROFILE_TOP_FRAMES = 15;

/** The profile directory of a path under the section's `--cpu-prof` directory (`DIR/paths`): `<upstream>-<era>-<method>-c<N>`. */
export function profileDirOf(root: string, cell: PathCell): string {
  return join(root, `${cell.upstream}-${cell.era}-${cell.method}-c${cell.concurrency}`);
}

/** Runs `cell` through a profiled gateway (`warmup` + `profileRequests` requests) and summarizes its profile. */
export async function profileCell(options: {
  cell: PathCell;
  config: PathsConfig;
  mcpServers: Record<string, Record<string, unknown>>;
  root: string;
  text: string;
  log: (message: string) => void;
}) {
  const { cell, config } = options;
  const dir = profileDirOf(options.root, cell);
  const gateway = await startGateway([], {
    cpuProfDir: dir,
    name: `gateway (profiled ${cell.upstream} ${cell.era} ${cell.method})`,
    config: { mcpServers: options.mcpServers },
  });
  const clients = new PathClients();
  const requests = config.profileRequests;
  try {
    const client = await clients.http(gateway.url, cell.era);
    const targets = targetsOf(UPSTREAM_NAMES[cell.upstream], config.resources, config.tools, true);
    const loop = (count: number) =>
      methodLoop(client, cell.method, targets, {
        count,
        concurrency: cell.concurrency,
        minChars: config.payloadBytes,
        text: options.text,
      });
    await loop(config.warmup);
    await loop(requests);
    options.log(`paths: profiled ${requests} requests of ${dir}`);
  } finally {
    await clients.close();
    await gateway.proc.stop(); // the profile is written as the gateway exits
  }
  // The profile the gateway wrote as it exited (the last by name).
  const summary = (await summarizeProfiles(dir, PROFILE_TOP_FRAMES)).at(-1);
  if (!summary) throw new Error(`no .cpuprofile written in ${dir}`);
  return { cell, requests: requests + config.warmup, ...summary };
}
