/**
 * What a V8 heap snapshot holds: a census (nodes grouped as DevTools' summary does: by constructor,
 * `(closure) name`, `(string)`, …), and the nodes a later snapshot of the same process added, each charged
 * to the nearest new instance of a named class above it (breadth-first down strong references), so a
 * Map's table or a closure's context counts for the `Server` or transport that holds it.
 */

/** One group: how many nodes and the sum of their self sizes (shallow bytes). */
export interface CensusEntry {
  count: number;
  bytes: number;
}

export type Census = Map<string, CensusEntry>;

/** The parsed `.heapsnapshot` JSON, as far as this module reads it. */
export interface HeapSnapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Built-in kinds of object that are parts of something else, never its owner. */
const PARTS = new Set(['Object', 'Array', 'Map', 'Set', 'WeakMap', 'WeakSet', 'Promise', 'system / Context']);

function groupOf(type: string, name: string): string {
  switch (type) {
    case 'object':
    case 'native':
      return name;
    case 'closure':
      return `(closure) ${name || '(anonymous)'}`;
    case 'string':
    case 'concatenated string':
    case 'sliced string':
      return '(string)';
    case 'array':
      return name ? `(array) ${name}` : '(array)';
    case 'hidden':
    case 'object shape':
      return `(system) ${name}`;
    case 'code':
      return '(compiled code)';
    default:
      return `(${type})`;
  }
}

/**
 * A snapshot's nodes by index (0 … count − 1): each one's fields, read from the flat node array, and where
 * the fields of an edge sit in the flat edge array.
 */
function layout(snapshot: HeapSnapshot) {
  const { node_fields: node, edge_fields: edge, node_types, edge_types } = snapshot.snapshot.meta;
  const { nodes, strings } = snapshot;
  const width = node.length;
  const field = (name: string) => {
    const at = node.indexOf(name);
    return (n: number): number => nodes[n * width + at]!;
  };
  const [type, name] = [field('type'), field('name')];
  const typeOf = (n: number): string => node_types[0][type(n)] ?? '?';
  const nameOf = (n: number): string => strings[name(n)] ?? '';
  return {
    width,
    count: nodes.length / width,
    typeOf,
    nameOf,
    groupOf: (n: number): string => groupOf(typeOf(n), nameOf(n)),
    idOf: field('id'),
    sizeOf: field('self_size'),
    edgeCountOf: field('edge_count'),
    edgeWidth: edge.length,
    edgeType: edge.indexOf('type'),
    toNode: edge.indexOf('to_node'),
    weak: edge_types[0].indexOf('weak'),
  };
}

function add(out: Census, group: string, bytes: number): void {
  const entry = out.get(group);
  if (entry) {
    entry.count += 1;
    entry.bytes += bytes;
  } else out.set(group, { count: 1, bytes });
}

/** Counts the nodes of a snapshot by group. */
export function census(snapshot: HeapSnapshot): Census {
  const l = layout(snapshot);
  const out: Census = new Map();
  for (let n = 0; n < l.count; n++) add(out, l.groupOf(n), l.sizeOf(n));
  return out;
}

/** The ids of every node of a snapshot. */
export function nodeIds(snapshot: HeapSnapshot): Set<number> {
  const l = layout(snapshot);
  return new Set(Array.from({ length: l.count }, (_, n) => l.idOf(n)));
}

/**
 * The nodes of `snapshot` whose ids are not in `old`, charged to their owner: the nearest new instance of
 * a named class above them (by strong references; itself, when it is one). Nodes no such instance reaches
 * are charged to `(unowned) <their group>`.
 */
export function ownership(snapshot: HeapSnapshot, old: Set<number>): Census {
  const l = layout(snapshot);
  const { edges } = snapshot;
  const firstEdge = new Uint32Array(l.count + 1);
  for (let n = 0; n < l.count; n++) firstEdge[n + 1] = firstEdge[n]! + l.edgeCountOf(n) * l.edgeWidth;
  const isNew = (n: number): boolean => !old.has(l.idOf(n));
  const owner = new Int32Array(l.count).fill(-1);
  let queue: number[] = [];
  for (let n = 0; n < l.count; n++) {
    if (isNew(n) && l.typeOf(n) === 'object' && !PARTS.has(l.nameOf(n))) {
      owner[n] = n;
      queue.push(n);
    }
  }
  while (queue.length > 0) {
    const next: number[] = [];
    for (const n of queue) {
      for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += l.edgeWidth) {
        if (edges[e + l.edgeType] === l.weak) continue;
        const to = edges[e + l.toNode]! / l.width;
        if (owner[to] !== -1 || !isNew(to)) continue;
        owner[to] = owner[n]!;
        next.push(to);
      }
    }
    queue = next;
  }
  const out: Census = new Map();
  for (let n = 0; n < l.count; n++) {
    if (!isNew(n)) continue;
    const o = owner[n]!;
    add(out, o === -1 ? `(unowned) ${l.groupOf(n)}` : l.nameOf(o), l.sizeOf(n));
  }
  return out;
}

/** A group's growth from one census to another, divided by `per` (e.g. per session). */
export interface CensusDelta {
  group: string;
  count: number;
  bytes: number;
}

/** `after − before` per group, divided by `per`, largest byte growth first (groups that did not move left out). */
export function censusDelta(before: Census, after: Census, per: number): CensusDelta[] {
  const groups = new Set([...before.keys(), ...after.keys()]);
  const deltas: CensusDelta[] = [];
  for (const group of groups) {
    const a = after.get(group) ?? { count: 0, bytes: 0 };
    const b = before.get(group) ?? { count: 0, bytes: 0 };
    if (a.count === b.count && a.bytes === b.bytes) continue;
    deltas.push({ group, count: (a.count - b.count) / per, bytes: (a.bytes - b.bytes) / per });
  }
  return deltas.sort((x, y) => y.bytes - x.bytes);
}
