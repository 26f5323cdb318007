import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { controlClient } from '../src/index.js';
import { Cleanup, deferred, httpClient, until, within } from './helpers.js';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/cli.js');
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

beforeAll(() => {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: build first (pnpm --filter @switchyard/testkit build)`);
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'testkit-cli-'));
  cleanup.add(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function waitForFile(path: string, ms = 5000): Promise<string> {
  await until(() => existsSync(path), ms, `control file ${path}`);
  return (await readFile(path, 'utf8')).trim();
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Spawns the CLI in --http mode and resolves with the URLs it prints. */
async function spawnHttp(args: string[]): Promise<{ child: ChildProcess; url: string; controlUrl: string }> {
  const child = spawn(process.execPath, [CLI, '--http', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  cleanup.add(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await within(
    new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`cli exited early with ${code}`)));
    }),
    5000,
    'cli --http startup line',
  );
  lines.close();
  const parsed = JSON.parse(first) as { url: string; controlUrl: string };
  return { child, ...parsed };
}

describe('switchyard-testkit CLI', () => {
  it('serves stdio with a control file, and exits when stdin ends', async () => {
    const dir = await tempDir();
    const controlFile = join(dir, 'control.url');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, '--name', 'cli', '--resources', '5', '--page-size', '2', '--control-file', controlFile],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    const transportErrors: Error[] = [];
    client.onerror = (error) => transportErrors.push(error);
    await within(client.connect(transport), 5000, 'stdio connect');
    cleanup.add(() => client.close());
    expect(client.getServerVersion()?.name).toBe('cli');

    const first = await client.request({ method: 'resources/list', params: {} });
    expect(first.resources.map((r) => r.uri)).toEqual(['test://cli/r/0', 'test://cli/r/1']);
    expect(first.nextCursor).toEqual(expect.any(String));

    const controlUrl = await waitForFile(controlFile);
    expect(controlUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/control$/);
    const control = controlClient(controlUrl);
    const updated = deferred<string>();
    client.setNotificationHandler('notifications/resources/updated', (n) => updated.resolve(n.params.uri));
    await client.subscribeResource({ uri: 'test://cli/r/4' });
    await control.updated('test://cli/r/4');
    expect(await within(updated.promise, 3000, 'updated over stdio')).toBe('test://cli/r/4');
    await control.fail({ method: 'resources/read', mode: 'error', code: -32010 });
    await expect(
      client.readResource({ uri: 'test://cli/r/0' }, { cacheMode: 'bypass' }),
    ).rejects.toMatchObject({
      code: -32010,
    });
    expect(await control.stats()).toMatchObject({
      sessions: 1,
      requests: { initialize: 1, 'resources/list': 1, 'resources/subscribe': 1, 'resources/read': 1 },
    });

    // stdout carried nothing but protocol messages.
    expect(transportErrors).toEqual([]);
    const pid = transport.pid;
    expect(pid).toEqual(expect.any(Number));
    await client.close();
    await until(
      () => {
        try {
          process.kill(pid!, 0);
          return false;
        } catch {
          return true;
        }
      },
      5000,
      'cli process exit',
    );
  });

  it("a 'crash' failure ends the stdio process and closes the client transport", async () => {
    const dir = await tempDir();
    const controlFile = join(dir, 'control.url');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, '--control-file', controlFile],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-crash', version: '1.0.0' });
    await within(client.connect(transport), 5000, 'stdio connect');
    cleanup.add(() => client.close());
    const closed = deferred<void>();
    client.onclose = () => closed.resolve();
    const control = controlClient(await waitForFile(controlFile));
    await control.fail({ method: 'resources/read', mode: 'crash' });
    await expect(
      client.readResource({ uri: 'test://testkit/r/0' }, { cacheMode: 'bypass' }),
    ).rejects.toThrow();
    await within(closed.promise, 5000, 'client transport closed');
    // The control API died with the process.
    await expect(control.stats()).rejects.toThrow();
  });

  it('serves --http, prints its URLs, exits 1 on crash and 0 on SIGTERM', async () => {
    const dir = await tempDir();
    const controlFile = join(dir, 'http-control.url');
    const a = await spawnHttp(['--name', 'web', '--resources', '3', '--control-file', controlFile]);
    expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(await waitForFile(controlFile)).toBe(a.controlUrl);
    const client = await httpClient(a.url, cleanup);
    const list = await client.listResources(undefined, { cacheMode: 'bypass' });
    expect(list.resources).toHaveLength(3);
    await controlClient(a.controlUrl).fail({ method: 'resources/read', mode: 'crash' });
    const crashed = exited(a.child);
    await expect(
      client.readResource({ uri: 'test://web/r/0' }, { cacheMode: 'bypass', timeout: 3000 }),
    ).rejects.toThrow();
    expect(await within(crashed, 5000, 'crash exit')).toBe(1);

    const b = await spawnHttp(['--completions', '']);
    const plain = await httpClient(b.url, cleanup);
    expect(plain.getServerCapabilities()?.completions).toBeUndefined();
    const stopped = exited(b.child);
    b.child.kill('SIGTERM');
    expect(await within(stopped, 5000, 'SIGTERM exit')).toBe(0);
  });
});
