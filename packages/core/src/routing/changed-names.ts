/**
 * What changed in one upstream's list, as clients see it: the exposed names added, removed or defined
 * differently, or `all` of that upstream's names when they cannot be told (it went down or came back, it
 * was retired by a reload, the gateway does not list it itself, its listing failed or was cut off).
 * No name at all: the upstream said its list changed and the gateway's listing shows no difference (the
 * change may be one the gateway cannot see); the endpoints that show all of that upstream's list hear it,
 * as the upstream's own clients would, and the ones that show only some of it do not.
 */
export type ChangedNames = ReadonlySet<string> | 'all';

/** No exposed name changed. */
export const NO_NAMES: ReadonlySet<string> = new Set();

/** Adds `names` to what is already gathered for `upstream` in `into` (`all` absorbs any names). */
export function gatherNames(
  into: Map<string, Set<string> | 'all'>,
  upstream: string,
  names: ChangedNames,
): void {
  const gathered = into.get(upstream);
  if (gathered === 'all') return;
  if (names === 'all') {
    into.set(upstream, 'all');
    return;
  }
  if (gathered === undefined) {
    into.set(upstream, new Set(names));
    return;
  }
  for (const name of names) gathered.add(name);
}
