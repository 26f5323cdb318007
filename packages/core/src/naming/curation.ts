/** Per-server curation of tools or prompts (`"tools": { "allow": [...], "deny": [...] }` in the config). */
export interface CurationConfig {
  /** Globs over the upstream's own names; when given, only matching names are exposed. */
  allow?: readonly string[];
  /** Globs over the upstream's own names that are never exposed (deny wins over allow). */
  deny?: readonly string[];
}

/** Decides whether one upstream name is exposed at all; a name it refuses is as if the upstream never had it. */
export type NameFilter = (name: string) => boolean;

/** The filter of no curation: every name is exposed (`nameFilter` hands back this very function). */
export const EVERYTHING: NameFilter = () => true;

/**
 * Compiles allow/deny globs (`*` any run of characters, `?` one character, everything else literal,
 * case-sensitive) into a filter. No curation exposes everything.
 *
 * @example
 * const allowed = nameFilter({ allow: ['search_*'], deny: ['*_delete'] });
 * allowed('search_code'); // true
 */
export function nameFilter(config: CurationConfig | undefined): NameFilter {
  if (!config || (config.allow === undefined && (config.deny?.length ?? 0) === 0)) return EVERYTHING;
  const allow = config.allow?.map(globToRegExp);
  const deny = (config.deny ?? []).map(globToRegExp);
  return (name) =>
    (allow === undefined || allow.some((g) => g.test(name))) && !deny.some((g) => g.test(name));
}

export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const char of glob) {
    if (char === '*') source += '[\\s\\S]*';
    else if (char === '?') source += '[\\s\\S]';
    // Only the pattern syntax characters are escaped: under the `u` flag an escaped `-` is a syntax error.
    else source += char.replace(/[.+^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'u');
}
