import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { controlClient } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { adminGet, startAdminGateway } from './support/admin.js';
import {
  Cleanup,
  connectHttp,
  eventually,
  httpUpstream,
  readControlUrl,
  TESTKIT_CLI,
  tempDir,
} from './support/harness.js';
import {
  cmdline,
  descendants,
  killAll,
  LINUX,
  type ProcStat,
  startTestkitHttp,
  stillRunning,
} from './support/processes.js';

// DESIGN §11: "An upstream that never finishes its handshake is given up after its `timeoutMs` and retried
// with backoff while the others serve." The testkit's hang-handshake upstream reads and counts every
// initialize / server/discover and never answers; a healthy upstream sits beside it.

const cleanup = new Cleanup();
/** Every process seen under a gateway: killed (with its group) after each test, whatever happened. */
const seen = new Map<number, ProcStat>();
afterEach(async () => {
  await cleanup.run();
  killAll(seen.values());
  seen.clear();
});

const TIMEOUT_MS = 1_500;

interface UpstreamStatus {
  name: string;
  state: string;
  lastError?: string;
  connections: number;
}

async function upstreamStatus(admin: string, name: string): Promise<UpstreamStatus> {
  const { json } = await adminGet(admin, '/admin/status');
  const found = (json.upstreams as UpstreamStatus[]).find((u) => u.name === name);
  if (!found) throw new Error(`no upstream ${name} in ${JSON.stringify(json)}`);
  return found;
}

/** A gateway with its admin listener, in front of the healthy `ok` and `other` (by default the hung `hang`). */
async function gatewayWith(other: Record<string, unknown>, name = 'hang', timeoutMs = TIMEOUT_MS) {
  const ok = await httpUpstream(cleanup, { name: 'ok', tools: 2 });
  const { gw, admin } = await startAdminGateway(cleanup, {
    mcpServers: { ok: { url: ok.url }, [name]: { ...other, timeoutMs } },
  });
  return { gw, admin };
}

/**
 * What every variant must show: the gateway listens (startAdminGateway waited for the line), the healthy
 * upstream answers while `hang` waits in backoff with the timeout named as its last error, and it has
 * never connected.
 */
async function expectServingBeside(gwUrl: string, admin: string) {
  const hang = await eventually(async () => {
    const s = await upstreamStatus(admin, 'hang');
    return s.state === 'backoff' && s;
  }, 'hang to be in backoff');
  expect(hang.lastError).toMatch(
    new RegExp(`did not complete its handshake within ${TIMEOUT_MS} ms \\(timeoutMs\\)`),
  );
  expect(hang.connections).toBe(0);
  expect(await upstreamStatus(admin, 'ok')).toMatchObject({ state: 'ready', connections: 1 });

  const client = await connectHttp(cleanup, gwUrl);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  expect(tools).toEqual(['ok__tool_0', 'ok__tool_1']);
  const call = await client.callTool({ name: 'ok__tool_0', arguments: { text: 'hi' } });
  expect(call.isError ?? false).toBe(false);
  // Still given up, not half-connected: the answer came while hang was down.
  expect((await upstreamStatus(admin, 'hang')).connections).toBe(0);
}

/**
 * A loopback proxy in front of `target` that holds back the answer to the first `server/discover` (the
 * era probe that opens every handshake) for `delayMs`, and passes everything else straight through.
 */
async function slowFirstHandshake(target: string, delayMs: number): Promise<string> {
  let delayed = false;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (!delayed && body.includes('"server/discover"')) {
      delayed = true;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)),
    ) as Record<string, string>;
    try {
      const answer = await fetch(target, {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
      });
      const out = Object.fromEntries(
        [...answer.headers].filter(
          ([k]) => !['content-length', 'content-encoding', 'transfer-encoding'].includes(k),
        ),
      );
      res.writeHead(answer.status, out);
      if (answer.body) for await (const chunk of answer.body) res.write(chunk);
      res.end();
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('an upstream that never finishes its handshake', () => {
  it('over HTTP: is given up after timeoutMs and retried with backoff while the others serve', async () => {
    const hang = await startTestkitHttp(cleanup, ['--name', 'hang', '--misbehave', 'hang-handshake']);
    const control = controlClient(hang.controlUrl);
    const { gw, admin } = await gatewayWith({ url: hang.url });
    await expectServingBeside(gw.url, admin);

    // Retried: every attempt opens with the era probe (a failed attempt teaches the gateway no era), so
    // a second server/discover is a second attempt; over HTTP a probe that timed out is not followed by
    // initialize, so the handshakes count the attempts.
    const stats = await eventually(async () => {
      const now = await control.stats();
      return (now.requests['server/discover'] ?? 0) >= 2 && now;
    }, 'a retried handshake');
    expect(stats.handshakes).toBeGreaterThanOrEqual(2);
    expect(gw.stderr()).toMatch(/failed to connect[^\n]*handshake within[^\n]*; retrying in \d+ ms/);
    expect((await upstreamStatus(admin, 'hang')).connections).toBe(0);
  });

  it('over stdio: is given up (its process stopped) and respawned with backoff while the others serve', async () => {
    const dir = await tempDir(cleanup);
    const controlFile = join(dir, 'hang.control');
    const { gw, admin } = await gatewayWith({
      command: process.execPath,
      args: [TESTKIT_CLI, '--name', 'hang', '--misbehave', 'hang-handshake', '--control-file', controlFile],
    });
    await expectServingBeside(gw.url, admin);

    // Each attempt spawns the server afresh (a new control URL each time); a given-up one is stopped, so
    // no more than one hang process runs at a time and the earlier ones are gone.
    const handshakes = new Map<string, number>();
    const hangs = new Map<number, ProcStat>();
    await eventually(async () => {
      if (LINUX) {
        for (const p of descendants(gw.pid!)) {
          seen.set(p.pid, p);
          if (cmdline(p.pid).includes('hang-handshake')) hangs.set(p.pid, p);
        }
      }
      const url = await readControlUrl(controlFile);
      try {
        handshakes.set(url, (await controlClient(url).stats()).handshakes);
      } catch {
        // that process was stopped meanwhile
      }
      return [...handshakes.values()].filter((n) => n >= 1).length >= 2;
    }, 'two hang processes, each sent a handshake');
    expect(gw.stderr()).toMatch(/failed to connect[^\n]*handshake within[^\n]*; retrying in \d+ ms/);
    if (LINUX) {
      expect(hangs.size).toBeGreaterThanOrEqual(2);
      await eventually(
        () => [...hangs.values()].filter(stillRunning).length <= 1,
        'given-up hang processes to be stopped',
        5_000,
      );
    }
    expect((await upstreamStatus(admin, 'hang')).connections).toBe(0);
  });

  it('is not given up before its timeoutMs: a slow HTTP handshake within it connects at the first attempt', async () => {
    // The answer to the era probe comes after more than half of timeoutMs, well within it (the gateway
    // once gave the probe half of timeoutMs, and an HTTP server was given up when that ran out).
    const slow = await httpUpstream(cleanup, { name: 'slow', tools: 1 });
    const url = await slowFirstHandshake(slow.url, 2_500);
    const { gw, admin } = await gatewayWith({ url }, 'slow', 4_000);
    expect(await upstreamStatus(admin, 'slow')).toMatchObject({ state: 'ready', connections: 1 });
    expect(gw.stderr()).not.toMatch(/failed to connect/);
    const client = await connectHttp(cleanup, gw.url);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'ok__tool_0',
      'ok__tool_1',
      'slow__tool_0',
    ]);
  });
});
