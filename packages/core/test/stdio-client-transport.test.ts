import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { eventually } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { liveChildren, terminateChildren } from '../src/transports/upstream/child-processes.js';
import type { InboundFaults } from '../src/transports/upstream/faults.js';
import { StderrTail } from '../src/transports/upstream/stderr-tail.js';
import { StdioClientTransport } from '../src/transports/upstream/stdio-client-transport.js';

const MiB = 1024 * 1024;

/** Prints a banner and a broken line, then answers `big` with a 2 MiB line (id last) and anything else briefly. */
const NOISY_SERVER = `
process.stdout.write('Noisy server v1.0 starting on stdio\\n');
process.stdout.write('{"debug": unterminated\\n');
process.stderr.write('a line on stderr\\n');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'big') {
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', result: { text: 'x'.repeat(2 * ${MiB}) }, id: m.id }) + '\\n');
  } else {
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { echo: m.method } }) + '\\r\\n');
  }
});
`;

/** Ignores stdin closing and SIGTERM, and starts a grandchild that ignores SIGTERM too; prints its pid. */
const STUBBORN_SERVER = `
process.on('SIGTERM', () => process.stderr.write('ignoring SIGTERM\\n'));
process.stdin.on('end', () => process.stderr.write('ignoring stdin end\\n'));
process.stdin.resume();
setInterval(() => {}, 1000);
const grandchild = require('node:child_process').spawn(
  process.execPath,
  ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.log('ready')"],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
grandchild.stdout.once('data', () => {
  const params = { level: 'info', data: { grandchild: grandchild.pid } };
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params }) + '\\n');
});
`;

/** Ignores stdin closing but stops on SIGTERM. */
const LINGERING_SERVER = `
process.stdin.resume();
setInterval(() => {}, 1000);
process.stdout.write('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"up"}}\\n');
`;

/** Process groups started here, killed after every test whatever happened. */
const groups: number[] = [];

/** Running and not a zombie (an exited grandchild waits for a reaper; it runs nothing any more). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return process.platform !== 'linux';
  }
}

/** Dies at start the way a Node server with a bad require does: a message, a stack, a version line. */
const DYING_SERVER = `
process.stderr.write('starting\\n');
process.stderr.write('Error: Cannot find module "/srv/server.js"\\n    at Module._resolveFilename (node:internal)\\n');
process.stderr.write('    at Module._load (node:internal)\\n\\n  code: "MODULE_NOT_FOUND"\\n}\\n\\nNode.js v20\\n');
process.exit(3);
`;

async function start(script: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['-e', script],
    env: process.env as Record<string, string>,
  });
  const messages: Array<Record<string, unknown>> = [];
  const faults = { unparsable: [] as Array<[string, string]>, oversized: [] as Array<[unknown, number]> };
  const reporting: InboundFaults = {
    unparsable: (text, where) => faults.unparsable.push([text, where]),
    oversized: (id, bytes) => faults.oversized.push([id, bytes]),
    failed: () => {},
    maxBytes: () => MiB,
  };
  transport.faults = reporting;
  transport.onmessage = (message: JSONRPCMessage) => messages.push(message as Record<string, unknown>);
  let stderr = '';
  transport.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let closed = false;
  transport.onclose = () => {
    closed = true;
  };
  await transport.start();
  const pid = transport.pid!;
  groups.push(pid);
  return { transport, pid, messages, faults, stderr: () => stderr, closed: () => closed };
}

/** The grandchild pid the stubborn server announces. */
async function grandchildOf(server: Awaited<ReturnType<typeof start>>): Promise<number> {
  return eventually(
    () => (server.messages[0]?.params as { data?: { grandchild?: number } } | undefined)?.data?.grandchild,
    'the grandchild to start',
    5000,
  );
}

describe('StdioClientTransport with real processes', () => {
  afterEach(() => {
    for (const pgid of groups.splice(0)) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  it('reports junk lines and an oversized line with its id, and delivers the other messages', async () => {
    const server = await start(NOISY_SERVER);
    await server.transport.send({ jsonrpc: '2.0', id: 1, method: 'big' });
    await server.transport.send({ jsonrpc: '2.0', id: 2, method: 'small' });
    await eventually(() => server.messages.length > 0, 'the answer to request 2', 5000);
    expect(server.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: { echo: 'small' } }]);
    expect(server.faults.unparsable).toEqual([
      ['Noisy server v1.0 starting on stdio', 'a stdout line'],
      ['{"debug": unterminated', 'a stdout line'],
    ]);
    const bigLine = JSON.stringify({ jsonrpc: '2.0', result: { text: 'x'.repeat(2 * MiB) }, id: 1 });
    expect(server.faults.oversized).toEqual([[1, Buffer.byteLength(bigLine)]]);
    await eventually(() => server.stderr().includes('a line on stderr'), 'stderr', 5000);

    // A well-behaved server exits once its stdin is closed (close() resolves on its exit, onclose follows
    // when its pipes have closed).
    await server.transport.close();
    expect(alive(server.pid)).toBe(false);
    await eventually(server.closed, 'onclose', 1000);
    expect(server.transport.pid).toBeUndefined();
    expect(() => server.transport.send({ jsonrpc: '2.0', id: 3, method: 'late' })).toThrow('Not connected');
  });

  it('close() stops a server and its grandchild that ignore stdin end and SIGTERM', async () => {
    const server = await start(STUBBORN_SERVER);
    const grandchild = await grandchildOf(server);
    expect(alive(server.pid)).toBe(true);
    expect(alive(grandchild)).toBe(true);
    const before = liveChildren();

    await server.transport.close();
    expect(alive(server.pid)).toBe(false);
    await eventually(() => !alive(grandchild), 'the grandchild to be gone', 1000);
    // stdin end, then SIGTERM, each given its second, then SIGKILL.
    expect(server.stderr()).toContain('ignoring stdin end\nignoring SIGTERM\n');
    await eventually(server.closed, 'onclose', 1000);
    expect(liveChildren()).toBe(before - 1);
    // Closing again is the same close.
    await server.transport.close();
  });

  it('terminateChildren() stops every live server: SIGTERM, then SIGKILL after the grace', async () => {
    const lingering = await start(LINGERING_SERVER);
    const stubborn = await start(STUBBORN_SERVER);
    const grandchild = await grandchildOf(stubborn);
    await eventually(() => lingering.messages.length > 0, 'the lingering server to be up', 5000);
    expect(liveChildren()).toBe(2);

    await terminateChildren(300);
    await eventually(
      () => !alive(lingering.pid) && !alive(stubborn.pid) && !alive(grandchild),
      'every process to be gone',
      1000,
    );
    await eventually(() => liveChildren() === 0, 'the exits to be seen', 1000);
    expect(stubborn.stderr()).toContain('ignoring SIGTERM');
    await eventually(() => lingering.closed() && stubborn.closed(), 'onclose of both', 1000);
  });

  it('exited() says how a server that died by itself ended, with its last stderr lines (found from outside: `write EPIPE`)', async () => {
    const server = await start(DYING_SERVER);
    // The write that meets it fails (EPIPE), or the pipe is gone already: either way it is ending.
    await server.transport.send({ jsonrpc: '2.0', id: 1, method: 'server/discover' }).catch(() => {});
    await eventually(server.closed, 'onclose', 5000);
    // Closed after it ended (as the SDK does when a handshake fails): still its own exit.
    await server.transport.close();
    expect(await server.transport.exited(5000)).toEqual({
      code: 3,
      signal: null,
      stderr: [
        'starting',
        'Error: Cannot find module "/srv/server.js"',
        'code: "MODULE_NOT_FOUND"',
        '}',
        'Node.js v20',
      ],
    });
  });

  it('exited() names the signal that killed a server, and is undefined at once for one that runs or was stopped', async () => {
    const killed = await start(`process.stderr.write('bye'); process.kill(process.pid, 'SIGKILL')`);
    await eventually(killed.closed, 'onclose', 5000);
    expect(await killed.transport.exited(5000)).toEqual({ code: null, signal: 'SIGKILL', stderr: ['bye'] });

    const running = await start(LINGERING_SERVER);
    await eventually(() => running.messages.length > 0, 'the lingering server to be up', 5000);
    // The bound is never waited for: a running server's pipes are whole.
    const asked = performance.now();
    expect(await running.transport.exited(60_000)).toBeUndefined();
    expect(performance.now() - asked).toBeLessThan(1_000);
    // Stopped by the gateway (SIGTERM): no exit of its own.
    await running.transport.close();
    expect(await running.transport.exited(60_000)).toBeUndefined();
  });

  it('a cwd that is not a folder is named, not reported as a missing command (found from outside: `spawn node ENOENT`)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-cwd-'));
    try {
      const file = join(dir, 'a-file');
      writeFileSync(file, 'x');
      for (const [cwd, problem] of [
        [join(dir, 'nope'), 'does not exist'],
        [file, 'is not a folder'],
      ] as const) {
        const transport = new StdioClientTransport({ command: process.execPath, args: ['-v'], env: {}, cwd });
        await expect(transport.start()).rejects.toThrow(`its cwd ${cwd} ${problem} (spawn `);
      }
      // A missing command in a folder that exists stays what it was.
      const missing = new StdioClientTransport({
        command: 'no-such-command-xyz',
        args: [],
        env: {},
        cwd: dir,
      });
      await expect(missing.start()).rejects.toThrow(/^spawn no-such-command-xyz ENOENT$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('StderrTail', () => {
  it('keeps the last lines, none blank or a stack frame, each cut short, however much is printed', () => {
    const tail = new StderrTail();
    tail.push('one\ntwo\r\n\n    at frame (x.js:1:1)\n');
    tail.push('three\nfo');
    expect(tail.lines()).toEqual(['one', 'two', 'three', 'fo']);
    tail.push(`ur\n${'y'.repeat(1_000)}\nfive\nsix`);
    expect(tail.lines()).toEqual(['three', 'four', `${'y'.repeat(300)}…`, 'five', 'six']);
    tail.push('z'.repeat(100_000));
    expect(tail.lines().at(-1)).toBe(`${'z'.repeat(300)}…`);
  });
});
