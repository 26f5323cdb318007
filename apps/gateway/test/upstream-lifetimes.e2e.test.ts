import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, EVERYTHING_CLI, eventually, TESTKIT_CLI, tempDir, writeConfig } from './support/harness.js';
import {
  cmdline,
  descendants,
  killAll,
  LINUX,
  type ProcStat,
  running,
  stillRunning,
  withEnv,
} from './support/processes.js';
import { connectStdio, type RawStdioGateway, spawnStdioGateway } from './support/stdio.js';

// DESIGN §11: "No upstream process outlives the gateway, however it is stopped: stdin closed, SIGTERM, a
// second signal that forces the exit, or the SDK client's close sequence. Stdio upstreams get stdin end,
// then SIGTERM, then SIGKILL; the forced exit signals them before it exits."
//
// A stdio-mode gateway runs three stdio upstreams: the reference server-everything, a testkit, and a
// stubborn server that ignores stdin end and SIGTERM and has a grandchild that ignores SIGTERM too. Once
// all three serve, the gateway's whole process tree is read from /proc; after each way of stopping it,
// every one of those processes must be gone (zombies count as gone: PID 1 here may not reap).

const cleanup = new Cleanup();
/** Every process seen under a gateway: killed (with its group) after each test, whatever happened. */
const seen = new Map<number, ProcStat>();
afterEach(async () => {
  killAll(seen.values());
  seen.clear();
  await cleanup.run();
});

/** A minimal 2025-era MCP server (one tool) that only a SIGKILL stops, and its grandchild likewise. */
const STUBBORN_SERVER = `
const { spawn } = require('node:child_process');
// Writes to a closed pipe must not end it either (once its parent is gone).
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});
process.on('SIGTERM', () => process.stderr.write('stubborn: ignoring SIGTERM\\n'));
process.stdin.on('end', () => process.stderr.write('stubborn: ignoring stdin end\\n'));
setInterval(() => {}, 1000);
const grandchild = spawn(
  process.execPath,
  ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.log('ready')", 'stubborn-grandchild'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
// With the argument "hang", it never answers anything (a handshake that never finishes).
const hang = process.argv[2] === 'hang';
const handle = (m) => {
  if (m.id === undefined || hang) return;
  if (m.method === 'initialize') {
    const serverInfo = { name: 'stubborn', version: '1.0.0' };
    return send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo } });
  }
  if (m.method === 'tools/list') {
    return send({ id: m.id, result: { tools: [{ name: 'hold_on', inputSchema: { type: 'object' } }] } });
  }
  if (m.method === 'ping') return send({ id: m.id, result: {} });
  send({ id: m.id, error: { code: -32601, message: 'Method not found: ' + m.method } });
};
// Nothing is answered before the grandchild runs (and ignores SIGTERM).
let queued = [];
grandchild.stdout.once('data', () => {
  for (const m of queued) handle(m);
  queued = undefined;
});
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf('\\n'); nl >= 0; nl = buffer.indexOf('\\n')) {
    const line = buffer.slice(0, nl).trim();
    buffer = buffer.slice(nl + 1);
    if (!line) continue;
    const m = JSON.parse(line);
    if (queued) queued.push(m);
    else handle(m);
  }
});
`;

/** In an upstream's args: the path of the stubborn server's script. */
const STUBBORN = '<stubborn>';

/** Set in the environment of every upstream of a test (and so of the stubborn one's grandchild). */
const MARK = 'SWITCHYARD_LIFETIMES_TEST';

/**
 * The stdio-mode config (no "listen") with the three upstreams (and `extra` ones; `STUBBORN` in their
 * args is the stubborn server's script). Each upstream's environment carries `MARK=<mark>`.
 */
async function setup(
  extra: Record<string, { args: string[]; timeoutMs?: number }> = {},
): Promise<{ file: string; mark: string }> {
  const dir = await tempDir(cleanup);
  const stubborn = join(dir, 'stubborn-server.cjs');
  await writeFile(stubborn, STUBBORN_SERVER);
  const env = { [MARK]: dir };
  const servers: Record<string, { args: string[]; timeoutMs?: number }> = {
    everything: { args: [EVERYTHING_CLI, 'stdio'] },
    local: { args: [TESTKIT_CLI, '--name', 'local', '--tools', '1', '--behavior-tools'] },
    stubborn: { args: [STUBBORN] },
    ...extra,
  };
  const mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, s]) => [
      name,
      { ...s, command: process.execPath, args: s.args.map((a) => (a === STUBBORN ? stubborn : a)), env },
    ]),
  );
  // A long grace: a drain with a call in flight lasts until the second signal forces the exit.
  return { file: await writeConfig(cleanup, { mcpServers, shutdownGraceMs: 30_000 }), mark: dir };
}

const UPSTREAMS = ['everything', 'local', 'stubborn'];

/** Which upstreams a tool list names (by the gateway's `<upstream>__` prefix). */
function upstreamsOf(tools: Array<{ name: string }>): string[] {
  return [...new Set(tools.map((t) => t.name.split('__')[0]!))].sort();
}

/**
 * The gateway's process tree, once every upstream is up: the three upstreams and the stubborn one's
 * grandchild, at least. Everything found is noted for the safety net.
 */
function upstreamTree(gatewayPid: number): ProcStat[] {
  const tree = descendants(gatewayPid);
  for (const p of tree) seen.set(p.pid, p);
  const lines = tree.map((p) => cmdline(p.pid));
  for (const marker of [EVERYTHING_CLI, TESTKIT_CLI, 'stubborn-server.cjs', 'stubborn-grandchild']) {
    expect(
      lines.some((line) => line.includes(marker)),
      `${marker} under the gateway:\n${lines.join('\n')}`,
    ).toBe(true);
  }
  return tree;
}

/**
 * Every process of `tree` is gone, and so is anything else that ran with the test's mark (one started
 * later, or under a gateway this test did not see).
 */
async function allGone(tree: ProcStat[], mark: string, logs: () => string): Promise<void> {
  const left = () => {
    const marked = withEnv(MARK, mark);
    for (const p of marked) seen.set(p.pid, p);
    return [...new Set([...tree.filter(stillRunning).map((p) => p.pid), ...marked.map((p) => p.pid)])];
  };
  try {
    await eventually(() => left().length === 0, 'every upstream process to be gone', 5_000);
  } catch (error) {
    const still = left().map((pid) => `${pid}: ${cmdline(pid)}`);
    throw new Error(
      `${(error as Error).message}; still running:\n${still.join('\n')}\ngateway log:\n${logs()}`,
    );
  }
}

/** The stubborn server was stopped in order: stdin end (ignored), then SIGTERM (ignored), then SIGKILL. */
function expectStopSequence(logs: string): void {
  const stdinEnd = logs.indexOf('stubborn: ignoring stdin end');
  expect(stdinEnd, logs).toBeGreaterThanOrEqual(0);
  expect(logs.indexOf('stubborn: ignoring SIGTERM', stdinEnd), logs).toBeGreaterThan(stdinEnd);
}

/** Starts a long tool call and waits until it is under way (its first progress), so a drain waits for it. */
async function callInFlight(gw: RawStdioGateway): Promise<void> {
  const params = { name: 'local__slow', arguments: { ms: 60_000, steps: 60 }, _meta: { progressToken: 'p' } };
  gw.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params });
  await gw.waitForMessage((m) => m.method === 'notifications/progress', 'the slow call under way', 10_000);
}

function within<T>(promise: Promise<T>, ms: number, what: string, logs: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} not within ${ms} ms:\n${logs()}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A raw stdio client of the gateway: initializes, then lists tools until all three upstreams have some. */
async function servingGateway(file: string): Promise<RawStdioGateway> {
  const gw = spawnStdioGateway(cleanup, file);
  let id = 0;
  const request = async (method: string, params: Record<string, unknown>) => {
    id += 1;
    const mine = id;
    gw.send({ jsonrpc: '2.0', id: mine, method, params });
    const answer = await gw.waitForMessage((m) => m.id === mine, method, 20_000);
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result as Record<string, unknown>;
  };
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'lifetimes', version: '1' },
  });
  gw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await eventually(async () => {
    const tools: Array<{ name: string }> = [];
    let cursor: unknown;
    do {
      const page = await request('tools/list', cursor ? { cursor } : {});
      tools.push(...(page.tools as Array<{ name: string }>));
      cursor = page.nextCursor;
    } while (cursor);
    return UPSTREAMS.every((u) => upstreamsOf(tools).includes(u));
  }, 'tools of all three upstreams');
  return gw;
}

describe.skipIf(!LINUX)('no upstream process outlives the gateway', () => {
  it('stdin closed and SIGTERM at the same moment (the MCP Inspector): drains, exits 0, leaves nothing', async () => {
    const { file, mark } = await setup();
    const gw = await servingGateway(file);
    const tree = upstreamTree(gw.pid!);
    gw.child.stdin?.end();
    gw.signal('SIGTERM');
    expect(await within(gw.exited, 15_000, 'the gateway exit', gw.stderr)).toBe(0);
    await allGone(tree, mark, gw.stderr);
    expectStopSequence(gw.stderr());
  });

  it('SIGTERM then a second SIGTERM (forced exit): exits 143 after signalling them, leaves nothing', async () => {
    const { file, mark } = await setup();
    const gw = await servingGateway(file);
    const tree = upstreamTree(gw.pid!);
    await callInFlight(gw);
    gw.signal('SIGTERM');
    await gw.waitForLine(/shutting down \(draining/);
    gw.signal('SIGTERM');
    expect(await within(gw.exited, 15_000, 'the gateway exit', gw.stderr)).toBe(143);
    expect(gw.stderr()).toMatch(/SIGTERM again, exiting without waiting/);
    await allGone(tree, mark, gw.stderr);
  });

  it('a third SIGTERM while the forced exit signals them: exits 143 at once, leaves nothing', async () => {
    const { file, mark } = await setup();
    const gw = await servingGateway(file);
    const tree = upstreamTree(gw.pid!);
    await callInFlight(gw);
    gw.signal('SIGTERM');
    await gw.waitForLine(/shutting down \(draining/);
    gw.signal('SIGTERM');
    await gw.waitForLine(/SIGTERM again, exiting without waiting/);
    gw.signal('SIGTERM');
    expect(await within(gw.exited, 15_000, 'the gateway exit', gw.stderr)).toBe(143);
    await allGone(tree, mark, gw.stderr);
  });

  it('SIGINT alone: drains, exits 0, leaves nothing', async () => {
    const { file, mark } = await setup();
    const gw = await servingGateway(file);
    const tree = upstreamTree(gw.pid!);
    gw.signal('SIGINT');
    expect(await within(gw.exited, 15_000, 'the gateway exit', gw.stderr)).toBe(0);
    await allGone(tree, mark, gw.stderr);
    expectStopSequence(gw.stderr());
  });

  it("the SDK client's close sequence (stdin end, SIGTERM, SIGKILL): leaves nothing", async () => {
    // The SDK's default negotiation ('legacy'); 'auto' (its throwaway probe gateway) is the next test.
    const { file, mark } = await setup();
    const { client, transport, logs } = await connectStdio(cleanup, file, { name: 'lifetimes' });
    await eventually(async () => {
      const listed = upstreamsOf((await client.listTools()).tools);
      return UPSTREAMS.every((u) => listed.includes(u));
    }, 'tools of all three upstreams');
    const gatewayPid = transport.pid!;
    const tree = upstreamTree(gatewayPid);
    await client.close();
    await eventually(() => !running(gatewayPid), 'the gateway to be gone', 15_000);
    await allGone(tree, mark, () => logs.text);
    expectStopSequence(logs.text);
  });

  it("a 2026-07-28 SDK client's era probe (a throwaway gateway, killed 1 s after stdin end + SIGTERM): leaves nothing", async () => {
    // With versionNegotiation 'auto' the SDK spawns a sibling gateway to probe server/discover and disposes
    // of it with stdin end and SIGTERM together, then SIGKILL a second later: the gateway must have stopped
    // its upstreams by then (its exiting stop steps), or they outlive it.
    const { file, mark } = await setup();
    const { client, transport, logs } = await connectStdio(cleanup, file, {
      name: 'lifetimes-auto',
      client: { versionNegotiation: { mode: 'auto' } },
    });
    await eventually(async () => {
      const listed = upstreamsOf((await client.listTools()).tools);
      return UPSTREAMS.every((u) => listed.includes(u));
    }, 'tools of all three upstreams');
    const gatewayPid = transport.pid!;
    const tree = upstreamTree(gatewayPid);
    await client.close();
    await eventually(() => !running(gatewayPid), 'the gateway to be gone', 15_000);
    // Whatever ran with the mark (the probe gateway's upstreams too) is gone.
    await allGone(tree, mark, () => logs.text);
  });

  it('SIGTERM while the upstreams are still starting (one in a long handshake): stops them all, exits 0', async () => {
    // "slowpoke" is another stubborn server that never answers its handshake: the gateway's start waits
    // for it (up to its timeoutMs), and is stopped meanwhile.
    const { file, mark } = await setup({ slowpoke: { args: [STUBBORN, 'hang'], timeoutMs: 20_000 } });
    const gw = spawnStdioGateway(cleanup, file);
    const tree = await eventually(() => {
      const found = descendants(gw.pid!);
      for (const p of found) seen.set(p.pid, p);
      const grandchildren = found.filter((p) => cmdline(p.pid).includes('stubborn-grandchild'));
      return grandchildren.length === 2 && found;
    }, 'both stubborn servers and their grandchildren');
    expect(gw.stderr()).not.toMatch(/serving MCP on stdio/);
    gw.signal('SIGTERM');
    expect(await within(gw.exited, 15_000, 'the gateway exit', gw.stderr)).toBe(0);
    await allGone(tree, mark, gw.stderr);
    expect(gw.stderr()).not.toMatch(/serving MCP on stdio/);
    expectStopSequence(gw.stderr());
  });
});
