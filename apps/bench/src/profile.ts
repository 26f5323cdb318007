/**
 * Summaries of the gateway's V8 CPU profiles (`--cpu-prof DIR`): where its busy time goes, by owner
 * (the innermost frame outside Node's internals: MCP SDK client/server, undici, zod, Switchyard, …) and by
 * top self-time frames. Idle time is excluded from every percentage.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { table } from './report/format.js';

type CallFrame = { functionName: string; url: string; lineNumber: number };

/** The parts of a `.cpuprofile` read here. */
interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

export type ProfileSummary = ReturnType<typeof summarizeProfile>;

const OWNERS: [RegExp, string | null][] = [
  [/undici/, 'undici fetch (Node-internal; upstream HTTP client)'],
  [/internal\/webstreams/, null],
  [/@modelcontextprotocol\+client|\/client\/dist\//, 'MCP SDK client (upstream side)'],
  [/@modelcontextprotocol\+(server|node)|\/(server|node)\/dist\//, 'MCP SDK server (downstream side)'],
  [/hono/, '@hono/node-server (SDK Node HTTP adapter)'],
  [/zod/, 'zod (SDK schema validation)'],
  [/eventsource-parser/, 'eventsource-parser (SSE parsing)'],
  [/packages\/core\/|apps\/gateway\//, 'switchyard (gateway code)'],
];

function ownerOf(url: string): string | null {
  for (const [pattern, owner] of OWNERS) if (pattern.test(url)) return owner;
  if (url.startsWith('file://'))
    return `other: ${url.replace(/^.*node_modules\/(\.pnpm\/)?([^/]+).*$/, '$2')}`;
  return null;
}

function frameName(frame: CallFrame): string {
  const url = frame.url
    .replace(/^file:\/\//, '')
    .replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '')
    .replace(/^.*\/(packages|apps)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${url}${url ? `:${frame.lineNumber + 1}` : ''}`;
}

export function summarizeProfile(file: string, profile: CpuProfile, top = 12) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }

  const owners = new Map<string, number>();
  const frames = new Map<string, number>();
  let busy = 0;
  for (const [id, micros] of self) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    busy += micros;
    const fn = node.callFrame.functionName;
    let owner: string | null = fn === '(garbage collector)' ? 'GC' : fn === '(program)' ? '(program)' : null;
    for (let p: number | undefined = id; owner === null && p !== undefined; p = parent.get(p)) {
      owner = ownerOf(byId.get(p)?.callFrame.url ?? '');
    }
    owner ??= 'Node internals (http, net, streams, microtasks)';
    owners.set(owner, (owners.get(owner) ?? 0) + micros);
    const name = frameName(node.callFrame);
    frames.set(name, (frames.get(name) ?? 0) + micros);
  }
  const ranked = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => ({ key: k, percent: busy > 0 ? (100 * v) / busy : 0 }));
  return {
    file,
    busyMs: busy / 1000,
    owners: ranked(owners).map(({ key, percent }) => ({ owner: key, percent })),
    frames: ranked(frames)
      .slice(0, top)
      .map(({ key, percent }) => ({ frame: key, percent })),
  };
}

/** Summaries of every `.cpuprofile` in `dir`, in name order (none if the directory is missing or empty). */
export async function summarizeProfiles(dir: string, top?: number): Promise<ProfileSummary[]> {
  let files: string[];
  try {
    files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).sort();
  } catch {
    return [];
  }
  const out: ProfileSummary[] = [];
  for (const f of files) {
    const path = join(dir, f);
    out.push(summarizeProfile(path, JSON.parse(await readFile(path, 'utf8')) as CpuProfile, top));
  }
  return out;
}

/**
 * Summaries of every directory at or under `root/what` that holds `.cpuprofile` files (a gateway each), by
 * its path under `root`, e.g. `plugins/cache-hit`.
 */
export async function profileTree(root: string, what: string): Promise<Record<string, ProfileSummary[]>> {
  const files = await readdir(join(root, what), { recursive: true }).catch(() => []);
  const dirs = new Set(files.filter((f) => f.endsWith('.cpuprofile')).map((f) => join(what, dirname(f))));
  const out: Record<string, ProfileSummary[]> = {};
  for (const dir of [...dirs].sort()) out[dir] = await summarizeProfiles(join(root, dir));
  return out;
}

/** A profile's lines under `title`: its file, busy time by owner (≥ 0.5 %), and the top self-time frames. */
export function renderProfile(title: string, s: ProfileSummary): string[] {
  const owners = s.owners.filter((o) => o.percent >= 0.5);
  return [
    title,
    `   ${s.file}`,
    `   busy (non-idle) CPU ${(s.busyMs / 1000).toFixed(2)} s; by owner: ` +
      owners.map((o) => `${o.owner} ${o.percent.toFixed(1)}%`).join('; '),
    table(
      ['% busy', 'self-time frame (function file:line)'],
      s.frames.map((f) => [f.percent.toFixed(1), f.frame]),
      'rl',
      '     ',
    ),
    '',
  ];
}
