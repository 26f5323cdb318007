import { globToRegExp, type VirtualServerConfig } from '@switchyard/core';
import { type ConfigIssue, joinPath } from './expand.js';
import type { RawConfig } from './schema.js';

/**
 * `virtualServers` as the core takes them, in config order. Each `servers` entry must name a configured
 * server or be a glob that matches one: an entry that matches nothing is a typo, refused with its path.
 */
export function resolveVirtualServers(
  raw: RawConfig['virtualServers'],
  serverNames: readonly string[],
  issues: ConfigIssue[],
): ReadonlyMap<string, VirtualServerConfig> {
  const out = new Map<string, VirtualServerConfig>();
  for (const [name, entry] of Object.entries(raw ?? {})) {
    const at = joinPath('$.virtualServers', name);
    entry.servers.forEach((pattern, i) => {
      const glob = globToRegExp(pattern);
      if (!serverNames.some((server) => glob.test(server))) {
        issues.push({
          path: `${joinPath(at, 'servers')}[${i}]`,
          message: `"${pattern}" matches no server in mcpServers (${serverNames.join(', ') || 'none configured'})`,
        });
      }
    });
    out.set(name, entry);
  }
  return out;
}
