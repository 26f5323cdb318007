/**
 * A client's server name as a Switchyard server name (`^[a-z][a-z0-9-]*$`): lower case, every run of
 * other characters becomes one `-`, and a name that does not start with a letter gets `server-` before it.
 * @example normalizeName('My GitHub_Server') // 'my-github-server'
 */
export function normalizeName(name: string): string {
  const base = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (base === '') return 'server';
  return /^[a-z]/.test(base) ? base : `server-${base}`;
}

/** `name`, or `name-2`, `name-3`… : the first one not in `taken`. */
export function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n += 1) {
    const candidate = `${name}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
