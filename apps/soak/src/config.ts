/**
 * The gateway's config file, rebuilt from a small state and written atomically (write + rename, as an
 * editor saving would): the gateway watches the file, so every write is a live reload (DESIGN §10).
 */
import { rename, writeFile } from 'node:fs/promises';
import type { SoakUpstream } from './upstreams.js';

/** The gateway's per-call upstream timeout: a SIGSTOPped upstream answers `upstream_timeout` after it. */
export const UPSTREAM_TIMEOUT_MS = 5_000;
/** `limits.maxResultBytes` of the run: small, so the misbehaving upstream's huge answers are cheap. */
export const MAX_RESULT_BYTES = 1024 * 1024;

export interface ConfigState {
  /** The upstreams in the config, in order. */
  upstreams: SoakUpstream[];
  /** `limits.idleSessionMs`: flipped by the "harmless" reload (a change the gateway applies in place). */
  idleSessionMs: number;
  /**
   * Added to one upstream's `timeoutMs`: a changed entry, which the gateway reconnects (its sessions'
   * subscriptions must come back on the new connection).
   */
  timeoutBump: Record<string, number>;
  /**
   * The audit plugin's log file and whether it records tool arguments: flipped by the same reload, so the
   * gateway sets the plugin up anew and closes the old instance once its requests finish, under traffic.
   */
  audit: { file: string; arguments: boolean };
}

export function renderConfig(state: ConfigState): Record<string, unknown> {
  return {
    listen: {
      http: { host: '127.0.0.1', port: 0, path: '/mcp' },
      admin: { host: '127.0.0.1', port: 0 },
    },
    limits: { idleSessionMs: state.idleSessionMs, maxResultBytes: MAX_RESULT_BYTES },
    plugins: [['@switchyard/plugin-audit', { file: state.audit.file, arguments: state.audit.arguments }]],
    shutdownGraceMs: 2_000,
    mcpServers: Object.fromEntries(
      state.upstreams.map((u) => [
        u.name,
        { ...u.entry, timeoutMs: UPSTREAM_TIMEOUT_MS + (state.timeoutBump[u.name] ?? 0) },
      ]),
    ),
  };
}

/** Writes the config for `state` to `path` atomically. */
export async function writeConfig(path: string, state: ConfigState): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(renderConfig(state), null, 2)}\n`, 'utf8');
  await rename(tmp, path);
}
