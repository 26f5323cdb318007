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

/** Where each field sits in a snapshot's flat node and edge arrays. */
function layout(snapshot: HeapSnapshot) {
  const { node_fields: node, edge_fields: edge, node_types, edge_types } = snapshot.snapshot.meta;
  return {
    width: node.length,
    type: node.indexOf('type'),
    name: node.indexOf('name'),
    id: node.indexOf('id'),
    size: node.indexOf('self_size'),
    edgeCount: node.indexOf('edge_count'),
    edgeWidth: edge.length,
    edgeType: edge.indexOf('type'),
    toNode: edge.indexOf('to_node'),
    nodeTypes: node_types[0],
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
  const { nodes, strings } = snapshot;
  const out: Census = new Map();
  for (let i = 0; i < nodes.length; i += l.width) {
    add(
      out,
      groupOf(l.nodeTypes[nodes[i + l.type]!] ?? '?', strings[nodes[i + l.name]!] ?? ''),
      nodes[i + l.size]!,
    );
  }
  return out;
}

/** The ids of every node of a snapshot. */
export function nodeIds(snapshot: HeapSnapshot): Set<number> {
  const l = layout(snapshot);
  const ids = new Set<number>();
  for (let i = l.id; i < snapshot.nodes.length; i += l.width) ids.add(snapshot.nodes[i]!);
  return ids;
}

/**
 * The nodes of `snapshot` whose ids are not in `old`, charged to their owner: the nearest new instance of
 * a named class above them (by strong references; itself, when it is one). Nodes no such instance reaches
 * are charged to `(unowned) <their group>`.
 */
export function ownership(snapshot: HeapSnapshot, old: Set<number>): Census {
  const l = layout(snapshot);
  const { nodes, edges, strings } = snapshot;
  const count = nodes.length / l.width;
  const firstEdge = new Uint32Array(count + 1);
  for (let n = 0; n < count; n++) {
    firstEdge[n + 1] = firstEdge[n]! + nodes[n * l.width + l.edgeCount]! * l.edgeWidth;
  }
  const isNew = (n: number): boolean => !old.has(nodes[n * l.width + l.id]!);
  const typeOf = (n: number): string => l.nodeTypes[nodes[n * l.width + l.type]!] ?? '?';
  const nameOf = (n: number): string => strings[nodes[n * l.width + l.name]!] ?? '';
  const owner = new Int32Array(count).fill(-1);
  let queue: number[] = [];
  for (let n = 0; n < count; n++) {
    if (isNew(n) && typeOf(n) === 'object' && !PARTS.has(nameOf(n))) {
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
  for (let n = 0; n < count; n++) {
    if (!isNew(n)) continue;
    const size = nodes[n * l.width + l.size]!;
    const o = owner[n]!;
    add(out, o === -1 ? `(unowned) ${groupOf(typeOf(n), nameOf(n))}` : nameOf(o), size);
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
