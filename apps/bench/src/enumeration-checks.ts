/**
 * What a correct enumeration is: exactly the expected items, each once, and (through the gateway) N per
 * upstream with none reported unavailable. A wrong walk throws, which fails the bench loudly.
 */
import { expectedDirect, expectedExposed, type ListKind } from './list-kinds.js';
import type { Walk } from './walk.js';

export interface ExpectedEnumeration {
  kind: ListKind;
  servers: readonly string[];
  perUpstream: number;
  /** Pages of one direct enumeration of a single upstream. */
  directPages: number;
  direct: Map<string, Set<string>>;
  /** Exposed item → owning server, K × N entries. */
  exposed: Map<string, string>;
}

export function expectedEnumeration(
  kind: ListKind,
  servers: readonly string[],
  perUpstream: number,
  pageSize: number,
): ExpectedEnumeration {
  return {
    kind,
    servers,
    perUpstream,
    directPages: Math.max(1, pageSize > 0 ? Math.ceil(perUpstream / pageSize) : 1),
    direct: new Map(servers.map((s) => [s, expectedDirect(kind, s, perUpstream)])),
    exposed: expectedExposed(kind, servers, perUpstream),
  };
}

/** Throws (with numbers) unless `w` is exactly one full enumeration of upstream `server`. */
export function checkDirect(w: Walk, server: string, e: ExpectedEnumeration): void {
  const expected = e.direct.get(server)!;
  const unique = new Set(w.items).size;
  const foreign = w.items.filter((item) => !expected.has(item)).length;
  const noun = e.kind.field;
  if (w.items.length !== e.perUpstream || unique !== w.items.length || foreign > 0) {
    throw new Error(
      `direct ${e.kind.method} of ${server}: ${w.items.length} ${noun} (${unique} unique, ${foreign} ` +
        `unexpected), expected exactly ${e.perUpstream}`,
    );
  }
  if (w.pages !== e.directPages) {
    throw new Error(`direct ${e.kind.method} of ${server}: ${w.pages} pages, expected ${e.directPages}`);
  }
}

/** Throws unless the merged walk has exactly the K × N expected exposed items, N per upstream, none unavailable. */
export function checkGateway(w: Walk, e: ExpectedEnumeration): void {
  const total = e.exposed.size;
  const seen = new Set<string>();
  const perUpstream = new Map<string, number>(e.servers.map((s) => [s, 0]));
  let foreign = 0;
  let duplicates = 0;
  for (const item of w.items) {
    const server = e.exposed.get(item);
    if (server === undefined) foreign += 1;
    else if (seen.has(item)) duplicates += 1;
    else {
      seen.add(item);
      perUpstream.set(server, perUpstream.get(server)! + 1);
    }
  }
  const noun = e.kind.field;
  const short = [...perUpstream].filter(([, n]) => n !== e.perUpstream);
  const problems: string[] = [];
  if (w.items.length !== total) problems.push(`${w.items.length} ${noun}, expected exactly ${total}`);
  if (duplicates > 0) problems.push(`${duplicates} listed twice`);
  if (foreign > 0) {
    const sample = w.items.filter((item) => !e.exposed.has(item)).slice(0, 3);
    problems.push(`${foreign} not among the expected exposed ${noun} (e.g. ${sample.join(', ')})`);
  }
  if (short.length > 0)
    problems.push(`per-upstream counts off: ${short.map(([n, c]) => `${n}=${c}`).join(', ')}`);
  if (w.unavailable.length > 0) problems.push(`upstreams reported unavailable: ${w.unavailable.join(', ')}`);
  if (problems.length > 0) {
    throw new Error(
      `gateway ${e.kind.method} enumeration is wrong (${w.pages} pages): ${problems.join('; ')}`,
    );
  }
}
