import { isRecord } from '@switchyard/core';

/** How deep `arguments` may nest (objects and arrays) for a `when` condition to see them. */
export const MAX_ARGUMENT_DEPTH = 32;
/** How many values (objects, arrays, entries and scalars) `arguments` may hold for a `when` condition to see them. */
export const MAX_ARGUMENT_VALUES = 10_000;

/** JSON arguments as CEL takes them: objects become `Map`s, numbers stay doubles. */
export type CelArgument = null | boolean | number | string | CelArgument[] | Map<string, CelArgument>;

/** A request's arguments as a `when` condition sees them, or why it cannot see them. */
export type ConvertedArguments =
  | { readonly ok: true; readonly value: Map<string, CelArgument> }
  | { readonly ok: false; readonly reason: string };

const cache = new WeakMap<object, ConvertedArguments>();

/**
 * The arguments of a tool call or prompt get as a CEL map, converted once per arguments object (every
 * rule and every upstream a decision tries reads the same conversion). Bounded before anything reaches
 * CEL: more than {@link MAX_ARGUMENT_DEPTH} levels of nesting or {@link MAX_ARGUMENT_VALUES} values, or
 * arguments that are not a JSON object, are not converted (the walk stops at the bound), and a condition
 * that reads them cannot be evaluated. Absent arguments are `{}`, as MCP defines them.
 */
export function celArguments(raw: unknown): ConvertedArguments {
  if (raw === undefined) return { ok: true, value: new Map() };
  if (!isRecord(raw)) return { ok: false, reason: 'arguments are not a JSON object' };
  const cached = cache.get(raw);
  if (cached !== undefined) return cached;
  const converted = convert(raw);
  cache.set(raw, converted);
  return converted;
}

function convert(raw: Record<string, unknown>): ConvertedArguments {
  let values = 0;
  const walk = (value: unknown, depth: number): CelArgument => {
    values += 1;
    if (values > MAX_ARGUMENT_VALUES)
      throw new Bound(`arguments hold more than ${MAX_ARGUMENT_VALUES} values`);
    if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
    if (typeof value === 'number') {
      if (Number.isFinite(value)) return value;
      throw new Bound('arguments hold a number that is not finite');
    }
    if (typeof value !== 'object') throw new Bound(`arguments hold a ${typeof value}, not JSON`);
    if (depth >= MAX_ARGUMENT_DEPTH) {
      throw new Bound(`arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels`);
    }
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    const map = new Map<string, CelArgument>();
    for (const [key, item] of Object.entries(value)) map.set(key, walk(item, depth + 1));
    return map;
  };
  try {
    return { ok: true, value: walk(raw, 0) as Map<string, CelArgument> };
  } catch (error) {
    if (error instanceof Bound) return { ok: false, reason: error.message };
    throw error;
  }
}

class Bound extends Error {}
