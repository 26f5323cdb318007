import { join } from 'node:path';
import { Client, type StandardSchemaV1, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  type Cleanup,
  controlClient,
  eventually,
  type ManagedProcess,
  startProcess,
  type TestServerStats,
} from '@switchyard/testkit';
import { expect } from 'vitest';
import { adminGet, startAdminGateway } from './admin.js';
import { type GatewayProcess, readControlUrl, TESTKIT_CLI, tempDir } from './harness.js';

// Misbehaving testkit upstreams (DESIGN §11) for the "upstreams in the wild" tests: real processes (stdio
// ones spawned by the gateway, HTTP ones here), each with its control API for stats; one gateway in front
// of four of them (every transport × era) and a healthy one; and the checks every test ends with: the
// spoiled request cost nothing else.

export type Json = Record<string, unknown>;

/** Every mode a long-lived shared upstream can have at once (the cursor and hang modes get their own). */
export const SHARED_MODES = [
  'no-result-type',
  'invalid-result',
  'unknown-ids',
  'duplicate-ids',
  'stdout-noise',
  'malformed-notifications',
  'huge-result',
  'bad-tool-names',
  'list-changed-burst',
  'server-requests',
  'http-500',
] as const;

export interface WildSpec {
  transport: 'stdio' | 'http';
  /** Also serve the 2026-07-28 era (`--modern`). */
  modern?: boolean;
  /** Misbehave modes; those meaning nothing on the transport are left out (the testkit would warn). */
  modes: readonly string[];
  /** More testkit CLI flags (`--page-size 3`). */
  args?: readonly string[];
}

/** One testkit upstream: its `mcpServers` entry and its stats (over the testkit's control API). */
export interface WildUpstream {
  readonly name: string;
  readonly spec: WildSpec;
  readonly entry: Json;
  /** The testkit process (HTTP only: a stdio one is the gateway's child). */
  readonly proc: ManagedProcess | undefined;
  stats(): Promise<TestServerStats>;
}

const ONLY_ON: Record<string, WildSpec['transport']> = { 'stdout-noise': 'stdio', 'http-500': 'http' };

/**
 * Prepares upstream `name`: an HTTP one is started now (ready once it prints its `{"url","controlUrl"}`
 * line); a stdio one is an entry the gateway spawns, writing its control URL to a file. `cleanup` stops
 * what is started here.
 */
export async function wildUpstream(cleanup: Cleanup, name: string, spec: WildSpec): Promise<WildUpstream> {
  const args = [
    '--name',
    name,
    ...(spec.modern ? ['--modern'] : []),
    '--behavior-tools',
    ...spec.modes
      .filter((mode) => (ONLY_ON[mode] ?? spec.transport) === spec.transport)
      .flatMap((mode) => ['--misbehave', mode]),
    ...(spec.args ?? []),
  ];
  if (spec.transport === 'http') {
    const { proc, ready } = await startProcess({
      name: `testkit ${name}`,
      args: [TESTKIT_CLI, '--http', ...args],
      ready: { line: addressLine, stream: 'stdout', timeoutMs: 15_000 },
    });
    cleanup.add(() => proc.stop());
    const control = controlClient(ready.controlUrl);
    return { name, spec, entry: { url: ready.url }, proc, stats: () => control.stats() };
  }
  const controlFile = join(await tempDir(cleanup), 'control-url');
  let control: ReturnType<typeof controlClient> | undefined;
  return {
    name,
    spec,
    entry: {
      command: process.execPath,
      args: [TESTKIT_CLI, '--stdio', ...args, '--control-file', controlFile],
    },
    proc: undefined,
    stats: async () => {
      control ??= controlClient(await readControlUrl(controlFile));
      return control.stats();
    },
  };
}

function addressLine(line: string): { url: string; controlUrl: string } | undefined {
  if (!line.startsWith('{')) return undefined;
  const { url, controlUrl } = JSON.parse(line) as { url?: unknown; controlUrl?: unknown };
  if (typeof url !== 'string' || typeof controlUrl !== 'string') throw new Error(`no address line: ${line}`);
  return { url, controlUrl };
}

/**
 * The handshake requests of one connection: `server/discover` for a modern upstream, `initialize` for a
 * 2025 one over HTTP (the gateway's era probe is refused by its transport before it counts), and over
 * stdio both: the probe (answered "method not found") and then `initialize`, on the same connection.
 */
export function oneHandshake(spec: WildSpec): { initialize: number; 'server/discover': number } {
  if (spec.modern) return { initialize: 0, 'server/discover': 1 };
  return { initialize: 1, 'server/discover': spec.transport === 'stdio' ? 1 : 0 };
}

/** Asserts the upstream saw the one handshake of its one connection (no re-initialize, no reconnect). */
export async function expectOneHandshake(u: WildUpstream): Promise<void> {
  const stats = await u.stats();
  const want = oneHandshake(u.spec);
  const seen = {
    initialize: stats.requests.initialize ?? 0,
    'server/discover': stats.requests['server/discover'] ?? 0,
  };
  expect(seen, `handshakes of ${u.name}`).toEqual(want);
  expect(stats.handshakes, `handshakes of ${u.name}`).toBe(want.initialize + want['server/discover']);
}

/** Accepts any result: the caller sees what the gateway answered, not what its own SDK thinks of it. */
export const ANY_RESULT: StandardSchemaV1<unknown, Json> = {
  '~standard': { version: 1, vendor: 'switchyard-test', validate: (value) => ({ value: value as Json }) },
};

/** What a request came to: its result, or its JSON-RPC error (code, message, data), to assert on whole. */
export type Outcome = { result: Json } | { error: { code: unknown; message: string; data: unknown } };

export function outcome(request: Promise<Json>): Promise<Outcome> {
  return request.then(
    (result) => ({ result }),
    (error: { code?: unknown; message?: string; data?: unknown }) => ({
      error: { code: error.code, message: String(error.message), data: error.data },
    }),
  );
}

/** Calls tool `name` with a pass-through result schema (the client's own validation masks nothing). */
export function callTool(client: Client, name: string, args: Json = {}): Promise<Outcome> {
  return outcome(client.request({ method: 'tools/call', params: { name, arguments: args } }, ANY_RESULT));
}

/** The text of a tool result's first content item. */
export function textOf(out: Outcome): string {
  if (!('result' in out)) throw new Error(`an error, not a result: ${JSON.stringify(out.error)}`);
  const content = out.result.content as { text?: string }[] | undefined;
  return content?.[0]?.text ?? '';
}

/** The echo tool's answer to `args`: what the behaviour tool `echo` (and every named echo tool) returns. */
export function echoed(tool: string, args: Json): Json {
  const value = { tool, arguments: args };
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** One upstream as `/admin/status` lists it. */
export async function adminUpstream(admin: string, name: string): Promise<Json> {
  const { json } = await adminGet(admin, '/admin/status');
  const found = (json.upstreams as Json[]).find((u) => u.name === name);
  if (!found) throw new Error(`no upstream ${name} in /admin/status`);
  return found;
}

/** Resolves once `/admin/status` lists every upstream ready (a slow one may connect after the listener). */
export function everyUpstreamReady(admin: string): Promise<true> {
  return eventually(async () => {
    const { json } = await adminGet(admin, '/admin/status');
    return (json.upstreams as Json[]).every((u) => u.state === 'ready');
  }, 'every upstream connected');
}

/** The four misbehaving upstreams of the shared fixture: stdio and HTTP, 2025-only and modern. */
export const BAD = ['sl', 'sm', 'hl', 'hm'] as const;
export type BadName = (typeof BAD)[number];

export interface WildGateway {
  gw: GatewayProcess;
  /** The admin listener's base URL. */
  admin: string;
  /** sl, sm, hl, hm and good, by name. */
  upstreams: Record<BadName | 'good', WildUpstream>;
  /** An SDK v2 client of the 2025 era, with no client capabilities (no sampling, elicitation, roots). */
  legacy: Client;
  /** An SDK v2 client of the 2026-07-28 era. */
  modern: Client;
  /** Date.now() before the gateway was spawned. */
  startedAt: number;
}

/**
 * ONE gateway (HTTP and admin listeners) in front of `sl` (stdio, 2025), `sm` (stdio, modern), `hl` (HTTP,
 * 2025), `hm` (HTTP, modern), each with the behaviour tools and every shared mode at once, and the healthy
 * `good`; resolves once every upstream is connected, with a client of each era.
 */
export async function startWildGateway(cleanup: Cleanup): Promise<WildGateway> {
  const list = await Promise.all([
    wildUpstream(cleanup, 'sl', { transport: 'stdio', modes: SHARED_MODES }),
    wildUpstream(cleanup, 'sm', { transport: 'stdio', modern: true, modes: SHARED_MODES }),
    wildUpstream(cleanup, 'hl', { transport: 'http', modes: SHARED_MODES }),
    wildUpstream(cleanup, 'hm', { transport: 'http', modern: true, modes: SHARED_MODES }),
    wildUpstream(cleanup, 'good', { transport: 'http', modes: [] }),
  ]);
  const startedAt = Date.now();
  const { gw, admin } = await startAdminGateway(cleanup, {
    mcpServers: Object.fromEntries(list.map((u) => [u.name, u.entry])),
  });
  await everyUpstreamReady(admin);
  const legacy = await connectClient(cleanup, gw.url, 'wild-legacy');
  const modern = await connectClient(cleanup, gw.url, 'wild-modern', true);
  expect([legacy.getProtocolEra(), modern.getProtocolEra()]).toEqual(['legacy', 'modern']);
  const upstreams = Object.fromEntries(list.map((u) => [u.name, u])) as WildGateway['upstreams'];
  return { gw, admin, upstreams, legacy, modern, startedAt };
}

/** An SDK v2 client of the gateway over Streamable HTTP: 2025 era, or 2026-07-28 with `modern`. */
export async function connectClient(
  cleanup: Cleanup,
  url: string,
  name: string,
  modern = false,
): Promise<Client> {
  const client = new Client(
    { name, version: '1.0.0' },
    modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanup.add(() => client.close());
  return client;
}

let echoes = 0;

/** What {@link expectUnharmed} needs: a client of the gateway, its admin listener and its upstreams. */
export interface Served {
  legacy: Client;
  admin: string;
  upstreams: Record<string, WildUpstream>;
}

/**
 * What every test ends with (DESIGN §11: the bad message cost only the request it spoiled): `echo` on each
 * of `names` and on `good` answers right, each of them saw one handshake, and the gateway lists it ready
 * after its one connection.
 */
export async function expectUnharmed(fx: Served, names: readonly string[]): Promise<void> {
  await Promise.all(
    [...names, 'good'].map(async (name) => {
      const upstream = fx.upstreams[name];
      if (!upstream) throw new Error(`no upstream ${name}`);
      echoes += 1;
      const args = { text: `still serving ${echoes}` };
      expect(await callTool(fx.legacy, `${name}__echo`, args), `echo on ${name}`).toEqual({
        result: echoed('echo', args),
      });
      await expectOneHandshake(upstream);
      expect(await adminUpstream(fx.admin, name), `${name} in /admin/status`).toMatchObject({
        state: 'ready',
        connections: 1,
      });
    }),
  );
}
