import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { adminGet, startAdminGateway } from './support/admin.js';
import { Cleanup, eventually, spawnGateway, startGateway, TESTKIT_CLI, tempDir } from './support/harness.js';

// A stdio server that cannot start (a wrong script path, a crash, a missing cwd) is reported as what
// happened to it, the same way by `check` and by the running gateway (found from outside: `write EPIPE`,
// "the connection closed during the server/discover probe (this transport probed in place …)", and
// `spawn node ENOENT` for a cwd that does not exist).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const SECRET = 's3cr3t-t0ken-value';

/** A server that prints a line with its token on stderr and exits with code 3 before any handshake. */
const EXITS = {
  command: process.execPath,
  args: ['-e', "process.stderr.write('oops ' + process.env.TOKEN + '\\n'); process.exit(3)"],
  env: { TOKEN: SECRET },
};

/** Runs `switchyard check --config <file>` to completion (at the default log level). */
async function check(file: string) {
  const proc = spawnGateway(cleanup, ['check', '--config', file]);
  const code = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** The STATUS cell of each row of the check table, by server name. */
function statuses(stdout: string): Map<string, string> {
  const [header = '', ...lines] = stdout.split('\n');
  const at = header.indexOf('STATUS');
  return new Map(
    lines.filter((l) => /^[a-z]/.test(l) && l.length > at).map((l) => [l.split(/\s+/)[0]!, l.slice(at)]),
  );
}

describe('a stdio server that exits at start', () => {
  it('check says how each ended and what it printed last, with no SDK words and no secret', async () => {
    const dir = await tempDir(cleanup);
    const file = join(dir, 'switchyard.json');
    const mcpServers = {
      missing: { command: process.execPath, args: ['./server.js'] },
      exits: EXITS,
      killed: { command: process.execPath, args: ['-e', "process.kill(process.pid, 'SIGKILL')"] },
      ok: { command: process.execPath, args: [TESTKIT_CLI, '--name', 'ok'] },
    };
    await writeFile(file, JSON.stringify({ mcpServers }));
    const { code, stdout, stderr } = await check(file);
    expect(code, stderr).toBe(1);
    const status = statuses(stdout);
    expect(status.get('missing')).toMatch(
      new RegExp(
        `^error: the server process exited with code 1 before its handshake; its stderr ended with: .*Error: Cannot find module '${join(dir, 'server.js')}'`,
      ),
    );
    expect(status.get('exits')).toBe(
      'error: the server process exited with code 3 before its handshake; its stderr ended with: oops ***',
    );
    expect(status.get('killed')).toBe('error: the server process was killed by SIGKILL before its handshake');
    expect(status.get('ok')).toBe('ok');
    expect(`${stdout}${stderr}`).not.toMatch(/EPIPE|negotiation|probed in place|s3cr3t/);
  });

  it('the running gateway logs it and /admin/status shows it; a cwd gone later is named', async () => {
    const dir = await tempDir(cleanup);
    const work = join(dir, 'work');
    await mkdir(work);
    const { gw, admin } = await startAdminGateway(cleanup, {
      mcpServers: { t: { ...EXITS, cwd: work } },
    });
    const warned = await gw.waitForLine(/WARN .*failed to connect .*?: (the server process .*); retrying in/);
    expect(warned[1]).toBe(
      'the server process exited with code 3 before its handshake; its stderr ended with: oops ***',
    );
    const lastError = async () => {
      const { json } = await adminGet(admin, '/admin/status');
      return (json.upstreams as { name: string; lastError?: string }[]).find((u) => u.name === 't')
        ?.lastError;
    };
    expect(await lastError()).toBe(warned[1]);

    // Its folder removed under the running gateway: the retries say so, not that node is missing.
    await rm(work, { recursive: true });
    const gone = await eventually(
      async () => (await lastError())?.includes('does not exist') && (await lastError()),
      'the retry to meet the missing cwd',
      15_000,
    );
    expect(gone).toMatch(new RegExp(`^its cwd ${work} does not exist \\(spawn \\S+ ENOENT\\)$`));
  });
});

describe('a stdio cwd that is no folder', () => {
  it('is refused at load with exit 2 and its JSON path, by check and by a start', async () => {
    const dir = await tempDir(cleanup);
    const file = join(dir, 'switchyard.json');
    const server = { command: process.execPath, args: [TESTKIT_CLI, '--name', 't'], cwd: './nope' };
    await writeFile(file, JSON.stringify({ mcpServers: { t: server } }));
    const expected = new RegExp(
      `\\$\\.mcpServers\\.t\\.cwd: no such folder: ${join(dir, 'nope')} \\(line 1, column \\d+\\)`,
    );
    const checked = await check(file);
    expect(checked.code).toBe(2);
    expect(checked.stdout).toBe('');
    expect(checked.stderr).toMatch(expected);
    const started = spawnGateway(cleanup, ['--config', file]);
    expect(await started.exited).toBe(2);
    expect(started.stderr()).toMatch(expected);
    expect(started.stderr()).not.toContain('ENOENT');
  });

  it('in a reload is refused, and the running config stays', async () => {
    const gw = await startGateway(cleanup, {
      mcpServers: { t: { command: process.execPath, args: [TESTKIT_CLI, '--name', 't'] } },
    });
    await gw.waitForLine(/\[switchyard:upstream:t\] connected/);
    const server = { command: process.execPath, args: [TESTKIT_CLI, '--name', 'u'], cwd: 'nope' };
    await writeFile(
      gw.file,
      JSON.stringify({ listen: { http: { host: '127.0.0.1', port: 0 } }, mcpServers: { u: server } }),
    );
    // SIGHUP re-reads it (whether or not the file watch saw the write first).
    gw.signal('SIGHUP');
    await gw.waitForLine(/reload refused; the running config stays: Invalid config/);
    await gw.waitForLine(/^\s+- \$\.mcpServers\.u\.cwd: no such folder: /);
    expect(gw.running()).toBe(true);
  });
});
