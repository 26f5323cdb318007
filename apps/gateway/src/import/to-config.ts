import { canonical } from '../config/canonical.js';
import type { ServerEntry } from './entry.js';
import { normalizeName, uniqueName } from './normalize-name.js';

/** A server found in a client file. */
export interface FoundServer {
  file: string;
  /** Its name in the client file. */
  name: string;
  entry: ServerEntry;
}

/** The Switchyard config `import` writes: stdio only (each client starts its own gateway), the servers. */
export interface ImportedConfig {
  listen: { stdio: true };
  mcpServers: Record<string, ServerEntry>;
}

export interface ConfigPlan {
  config: ImportedConfig;
  /** Which server each found one became (a duplicate maps to the one it repeats). */
  names: (FoundServer & { as: string; duplicate: boolean })[];
}

/**
 * Builds the config: names normalised (`^[a-z][a-z0-9-]*$`), a name already taken gets `-2`, `-3`…, and
 * a server defined identically under the same name in several clients is imported once.
 */
export function toConfig(found: readonly FoundServer[]): ConfigPlan {
  const mcpServers: Record<string, ServerEntry> = {};
  const names: ConfigPlan['names'] = [];
  const byBase = new Map<string, string[]>();
  for (const server of found) {
    const base = normalizeName(server.name);
    const same = (byBase.get(base) ?? []).find(
      (taken) => canonical(mcpServers[taken]) === canonical(server.entry),
    );
    if (same !== undefined) {
      names.push({ ...server, as: same, duplicate: true });
      continue;
    }
    const name = uniqueName(base, new Set(Object.keys(mcpServers)));
    mcpServers[name] = server.entry;
    byBase.set(base, [...(byBase.get(base) ?? []), name]);
    names.push({ ...server, as: name, duplicate: false });
  }
  return { config: { listen: { stdio: true }, mcpServers }, names };
}
