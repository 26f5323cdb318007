import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  eventually,
  freePort,
  httpUpstream,
  rawPost,
  spawnGateway,
  startGateway,
  tempDir,
  writeConfig,
} from './support/harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const httpListen = { http: { host: '127.0.0.1', port: 0, path: '/mcp' } };

/** Spawns the CLI; `done` resolves with its exit code and everything it wrote once it has exited. */
function launch(args: string[], env?: NodeJS.ProcessEnv) {
  const gw = spawnGateway(cleanup, args, { env });
  return Object.assign(gw, {
    done: async () => {
      const code = await gw.exited; // resolves once the output is drained too
      return { code, stdout: gw.stdout(), stderr: gw.stderr() };
    },
  });
}

/** Runs the CLI to completion (commands that must exit by themselves). */
function run(args: string[], env?: NodeJS.ProcessEnv) {
  return launch(args, env).done();
}

async function configFile(content: string): Promise<string> {
  const file = join(await tempDir(cleanup), 'switchyard.json');
  await writeFile(file, content);
  return file;
}

describe('command line', () => {
  it('--help prints usage on stderr, nothing on stdout, and exits 0', async () => {
    for (const { code, stdout, stderr } of await Promise.all([run(['--help']), run(['-h'])])) {
      expect(code).toBe(0);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/Usage:/);
      expect(stderr).toContain('--config');
      expect(stderr).toContain('--log-level');
    }
  });

  it('--version prints the package version and exits 0', async () => {
    const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const { code, stdout, stderr } = await run(['--version']);
    expect(code).toBe(0);
    expect(`${stdout}${stderr}`).toMatch(new RegExp(`switchyard ${version.replaceAll('.', '\\.')}`));
  });

  it('refuses an unknown flag, a stray argument and a bad --log-level with exit 2', async () => {
    const [unknown, stray, level] = await Promise.all([
      run(['--bogus']),
      run(['extra.json']),
      run(['--log-level', 'verbose']),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/--bogus/);
    expect(unknown.stderr).toMatch(/--help/);

    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/extra\.json/);

    expect(level.code).toBe(2);
    expect(level.stdout).toBe('');
    expect(level.stderr).toMatch(/--log-level/);
    expect(level.stderr).toMatch(/"verbose"/);
    expect(level.stderr).toMatch(/debug, info, warn, error/);
  });

  it('refuses an empty --config (an unset variable) with exit 2, never the embedded demo config', async () => {
    // Found from outside: `check --config "$CONFIG"` with CONFIG unset checked the demo and exited 0.
    for (const args of [
      ['--config', ''],
      ['check', '--config', '  '],
      ['--config', '', '--virtual-server', 'x'],
    ]) {
      const { code, stdout, stderr } = await run(args);
      expect(code, args.join(' ')).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain('--config is empty');
      expect(stderr).not.toContain('embedded');
    }
  });

  it('exits 2 naming the file when the config is missing or not JSON', async () => {
    const missing = join(await tempDir(cleanup), 'nope.json');
    const broken = await configFile('{ "mcpServers": { ');
    const [notFound, invalid] = await Promise.all([run(['--config', missing]), run(['--config', broken])]);
    expect(notFound.code).toBe(2);
    expect(notFound.stdout).toBe('');
    expect(notFound.stderr).toContain(missing);
    expect(notFound.stderr).toMatch(/file not found/);

    expect(invalid.code).toBe(2);
    expect(invalid.stdout).toBe('');
    expect(invalid.stderr).toContain(broken);
    expect(invalid.stderr).toMatch(/not valid JSON/);
  });

  it('exits 2 on a bad config, naming the file and the JSON path of each problem', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ mcpServers: { Bad: { command: 'x' } } }, '$.mcpServers.Bad', /must match \^\[a-z\]\[a-z0-9-\]\*\$/],
      [{ mcpServers: { docs: { command: 'x', ars: ['a'] } } }, '$.mcpServers.docs', /unknown key\(s\) "ars"/],
      [
        { mcpServers: { docs: { comand: 'npx', args: [] } } },
        '$.mcpServers.docs',
        /unknown key\(s\) "comand"/,
      ],
      [
        { mcpServers: { docs: { command: 'x', env: { TOKEN: '${SWITCHYARD_UNSET_VAR}' } } } },
        '$.mcpServers.docs.env.TOKEN',
        /\$\{SWITCHYARD_UNSET_VAR\} is not set/,
      ],
      [{ listen: { htp: {} }, mcpServers: {} }, '$.listen', /unknown key\(s\) "htp"/],
    ];
    const env = { SWITCHYARD_UNSET_VAR: undefined };
    const files = await Promise.all(cases.map(([config]) => writeConfig(cleanup, config)));
    const results = await Promise.all(files.map((file) => run(['--config', file], env)));
    cases.forEach(([, path, why], i) => {
      const { code, stdout, stderr } = results[i]!;
      expect(code, stderr).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(files[i]!);
      const lines = stderr.split('\n').filter((l) => l.includes(`  - ${path}: `));
      expect(
        lines.some((l) => why.test(l)),
        `no line for ${path} matching ${why} in:\n${stderr}`,
      ).toBe(true);
      expect(stderr).toMatch(/nothing was started/);
    });
  });
});

describe('running gateway', () => {
  it('exits 1 with a message naming the port when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanup.add(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const { port } = blocker.address() as { port: number };
    const file = await writeConfig(cleanup, {
      listen: { http: { host: '127.0.0.1', port, path: '/mcp' } },
      mcpServers: {},
    });
    const { code, stdout, stderr } = await run(['--config', file]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(String(port));
    expect(stderr).toMatch(/in use: pick another "port" in listen\.http\)/);
    // The listener on the taken port is the one named (found from outside: always listen.http).
    const admin = await writeConfig(cleanup, {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' }, admin: { host: '127.0.0.1', port } },
      mcpServers: {},
    });
    const second = await run(['--config', admin]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/in use: pick another "port" in listen\.admin\)/);
  });

  it('prints the listening URL on stderr only, and exits 0 on SIGTERM and on SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const gw = await startGateway(cleanup, { listen: httpListen, mcpServers: {} });
      expect(gw.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(gw.stderr()).toContain(`listening on ${gw.url}`);
      const ping = await rawPost(gw.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      expect(ping.status).toBeLessThan(500);
      gw.signal(signal);
      expect(await gw.exited).toBe(0);
      expect(gw.stderr()).toContain(`${signal}, shutting down`);
      expect(gw.stdout()).toBe('');
    }
  });

  it('--log-level debug shows debug lines, overriding "logLevel" in the config', async () => {
    const gw = await startGateway(
      cleanup,
      { listen: httpListen, mcpServers: {}, logLevel: 'error' },
      { args: ['-l', 'debug'] },
    );
    await connectHttp(cleanup, gw.url);
    await gw.waitForLine(/ DEBUG \[switchyard:http\] session opened/);
  });

  it('--log-level error hides the info lines', async () => {
    const port = await freePort();
    const file = await writeConfig(cleanup, {
      listen: { http: { host: '127.0.0.1', port, path: '/mcp' } },
      mcpServers: {},
    });
    const gw = launch(['--config', file, '--log-level', 'error']);
    const url = `http://127.0.0.1:${port}/mcp`;
    // Nothing announces readiness at this level: poll until the listener answers.
    await eventually(
      () => rawPost(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })).then(() => true),
      'the gateway to listen',
    );
    await connectHttp(cleanup, url);
    gw.signal('SIGTERM');
    const { code, stdout, stderr } = await gw.done();
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).not.toMatch(/ (INFO|DEBUG|WARN) /);
    expect(stderr).not.toContain('listening on');
  });

  it('takes "logLevel" from the config when no flag is given', async () => {
    const gw = await startGateway(cleanup, { listen: httpListen, mcpServers: {}, logLevel: 'debug' });
    await connectHttp(cleanup, gw.url);
    await gw.waitForLine(/ DEBUG \[switchyard:http\] session opened/);
  });
});

describe('plugins from the config', () => {
  it('loads an in-house plugin by path and applies it to requests', async () => {
    const plugin = fileURLToPath(new URL('./fixtures/deny-plugin.js', import.meta.url));
    const up = await httpUpstream(cleanup, { name: 'docs', resources: 3 });
    const gw = await startGateway(cleanup, {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: { docs: { url: up.url } },
      plugins: [[plugin, { contains: '/r/2' }]],
    });
    const client = await connectHttp(cleanup, gw.url);
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'docs+test://docs/r/1' } }),
    ).resolves.toBeDefined();
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'docs+test://docs/r/2' } }),
    ).rejects.toMatchObject({ code: -32007, data: { reason: 'forbidden' } });
  });

  it('refuses to start when a plugin cannot be loaded, naming it', async () => {
    const file = await writeConfig(cleanup, { mcpServers: {}, plugins: [['./nope.js']] });
    const gw = spawnGateway(cleanup, ['--config', file]);
    expect(await gw.exited).toBe(2);
    expect(gw.stderr()).toMatch(
      /plugin error \(PLUGIN_INVALID\): Cannot load plugin "\.\/nope\.js" \(\$\.plugins\[0\]/,
    );
  });
});
