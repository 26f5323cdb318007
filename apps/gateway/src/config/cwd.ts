import { stat } from 'node:fs/promises';
import type { UpstreamConfig } from '@switchyard/core';
import { type ConfigIssue, joinPath } from './expand.js';

/**
 * A stdio server's `cwd` must be a folder that exists: spawning in one that is not fails as
 * `spawn node ENOENT`, which reads as if the command were missing, and would be retried for ever. Each
 * that is not is an issue at `$.mcpServers.<name>.cwd`, naming the folder looked for (a relative `cwd`
 * is resolved already, from the config file's folder; without `cwd` it is that folder, which exists).
 */
export async function checkCwds(upstreams: readonly UpstreamConfig[], issues: ConfigIssue[]): Promise<void> {
  await Promise.all(
    upstreams.map(async ({ name, transport }) => {
      if (transport.kind !== 'stdio' || transport.cwd === undefined) return;
      const problem = await folderProblem(transport.cwd);
      if (problem === undefined) return;
      issues.push({
        path: joinPath(joinPath('$.mcpServers', name), 'cwd'),
        message: `${problem}: ${transport.cwd}`,
      });
    }),
  );
}

async function folderProblem(path: string): Promise<string | undefined> {
  try {
    return (await stat(path)).isDirectory() ? undefined : 'not a folder';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'no such folder' : `cannot use the folder (${code})`;
  }
}
