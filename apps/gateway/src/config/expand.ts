/** A problem found in the config file, located by its JSON path (and, from a file, its line and column). */
export interface ConfigIssue {
  path: string;
  message: string;
  /** 1-based line in the config file. */
  line?: number;
  /** 1-based column in the config file. */
  column?: number;
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` (and `${VAR:-default}`) in every string of a parsed config, reading `env`.
 * An unset variable without a default is an issue at that string's JSON path.
 */
export function expandEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  issues: ConfigIssue[],
  path = '$',
): unknown {
  if (typeof value === 'string') {
    return value.replace(VAR, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      // Shell semantics: `:-` substitutes the default when VAR is unset or empty.
      if (found !== undefined && (found !== '' || fallback === undefined)) return found;
      if (fallback !== undefined) return fallback;
      issues.push({ path, message: `environment variable \${${name}} is not set` });
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => expandEnv(item, env, issues, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // Assigned, it would become the object's prototype: its keys would be read as if they were set here.
      if (key === '__proto__') {
        issues.push({ path: joinPath(path, key), message: '"__proto__" is not allowed as a key' });
        continue;
      }
      out[key] = expandEnv(item, env, issues, joinPath(path, key));
    }
    return out;
  }
  return value;
}

export function joinPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
