import { canonicalJson } from '../canonical-json.js';

/**
 * One listing of an upstream's items as clients see them: exposed name (a resource's URI, a template's URI
 * template) → the item's canonical JSON.
 */
export type ListedItems = ReadonlyMap<string, string>;

/** Stands for an item that has no JSON form: never equal to another listing's (so always a change). */
let unserializable = 0;

/**
 * The items of one listing by exposed name (the field `key`: `name`, or `uri`, `uriTemplate`), each as its
 * canonical JSON (RFC 8785): the same definition with its keys in another order is the same item. Items
 * without a string name are left out.
 */
export function listedItems(
  items: readonly Record<string, unknown>[],
  key: 'name' | 'uri' | 'uriTemplate' = 'name',
): Map<string, string> {
  const listed = new Map<string, string>();
  for (const item of items) {
    const name = item[key];
    if (typeof name === 'string') listed.set(name, serialized(item));
  }
  return listed;
}

function serialized(item: Record<string, unknown>): string {
  try {
    return canonicalJson(item);
  } catch {
    // Not JSON (a non-finite number, a function): canonical JSON never starts with NUL.
    unserializable += 1;
    return `\u0000${unserializable}`;
  }
}

/** The names listed in only one of `before` and `after`, or listed in both with different definitions. */
export function changedNames(before: ListedItems, after: ListedItems): Set<string> {
  const changed = new Set<string>();
  for (const [name, item] of after) if (before.get(name) !== item) changed.add(name);
  for (const name of before.keys()) if (!after.has(name)) changed.add(name);
  return changed;
}
