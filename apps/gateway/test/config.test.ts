import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigIssue } from '../src/config/expand.js';
import { ConfigError, type GatewayConfig, loadConfigFile, parseConfig } from '../src/config/load.js';
import { DEFAULT_LIMITS } from '../src/listeners/limits.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchyard-config-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `content` (an object is serialised as JSON) to a temp config file and loads it. */
async function load(content: unknown, env: NodeJS.ProcessEnv = {}, name = 'switchyard.json') {
  const file = join(dir, name);
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return { file, config: () => loadConfigFile(file, env) };
}

async function loadError(
  content: unknown,
  env: NodeJS.ProcessEnv = {},
): Promise<{ file: string; error: ConfigError }> {
  const { file, config } = await load(content, env);
  const error = await config().then(
    (ok: GatewayConfig) => {
      throw new Error(`expected a ConfigError, got ${JSON.stringify(ok)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return { file, error: error as ConfigError };
}

/**
 * The error names the file and, for the expected issue, its JSON path (exact, or a pattern where either the
 * entry or its key is a fair place to report) and what is wrong.
 */
function expectIssue(
  error: ConfigError,
  file: string,
  path: string | RegExp,
  message: RegExp | string,
): ConfigIssue {
  expect(error.name).toBe('ConfigError');
  expect(error.message).toContain(`Invalid config ${file}:`);
  const issue = error.issues.find(
    (i) =>
      (typeof path === 'string' ? i.path === path : path.test(i.path)) &&
      (typeof message === 'string' ? i.message.includes(message) : message.test(i.message)),
  );
  expect(issue, `no issue at ${path} matching ${message}; got ${JSON.stringify(error.issues)}`).toBeDefined();
  expect(error.message).toContain(`  - ${issue?.path}: ${issue?.message}`);
  return issue as ConfigIssue;
}

const server = (entry: Record<string, unknown>) => ({ mcpServers: { docs: entry } });

describe('loadConfigFile: a valid config', () => {
  it('resolves every transport kind, relative paths, env and defaults', async () => {
    // Each cwd is a folder that exists (a load refuses one that does not).
    const tool = join(dir, 'opt-tool');
    await mkdir(join(dir, 'servers/files'), { recursive: true });
    await mkdir(tool);
    const { file, config } = await load(
      {
        $schema: 'https://example.com/switchyard.schema.json',
        listen: { stdio: true, http: { port: 0, allowedHosts: ['gw.local'] } },
        mcpServers: {
          files: {
            command: 'node',
            args: ['server.js', '--root', '${ROOT}'],
            env: { TOKEN: '${FILES_TOKEN}' },
            cwd: 'servers/files',
            timeoutMs: 1000,
          },
          abs: { type: 'stdio', command: '/usr/bin/tool', cwd: tool },
          docs: {
            url: 'https://docs.example.com/mcp',
            headers: { Authorization: 'Bearer ${DOCS_TOKEN:-anonymous}' },
          },
          legacy: { transport: 'sse', url: 'http://127.0.0.1:9000/sse', prefix: false },
          old: { type: 'sse', url: 'http://127.0.0.1:9001/sse' },
          typed: { type: 'streamable-http', url: 'http://127.0.0.1:9002/mcp' },
          off: { command: 'never', disabled: true, autoApprove: ['x'] },
        },
        cursorSecret: 'shh',
        logLevel: 'debug',
      },
      { ROOT: '/data', FILES_TOKEN: 't0k3n' },
    );
    const expected: GatewayConfig = {
      source: file,
      baseDir: dir,
      plugins: [],
      listen: {
        stdio: true,
        http: { host: '127.0.0.1', port: 0, path: '/mcp', allowedHosts: ['gw.local'], allowedOrigins: [] },
      },
      upstreams: [
        {
          name: 'files',
          prefix: true,
          timeoutMs: 1000,
          transport: {
            kind: 'stdio',
            command: 'node',
            args: ['server.js', '--root', '/data'],
            env: { TOKEN: 't0k3n' },
            cwd: join(dir, 'servers/files'),
          },
        },
        {
          name: 'abs',
          prefix: true,
          timeoutMs: 30_000,
          transport: { kind: 'stdio', command: '/usr/bin/tool', args: [], env: {}, cwd: tool },
        },
        {
          name: 'docs',
          prefix: true,
          timeoutMs: 30_000,
          transport: {
            kind: 'http',
            url: 'https://docs.example.com/mcp',
            headers: { Authorization: 'Bearer anonymous' },
          },
        },
        {
          name: 'legacy',
          prefix: false,
          timeoutMs: 30_000,
          transport: { kind: 'sse', url: 'http://127.0.0.1:9000/sse', headers: {} },
        },
        {
          name: 'old',
          prefix: true,
          timeoutMs: 30_000,
          transport: { kind: 'sse', url: 'http://127.0.0.1:9001/sse', headers: {} },
        },
        {
          name: 'typed',
          prefix: true,
          timeoutMs: 30_000,
          transport: { kind: 'http', url: 'http://127.0.0.1:9002/mcp', headers: {} },
        },
      ],
      cursorSecret: 'shh',
      logLevel: 'debug',
      limits: { ...DEFAULT_LIMITS },
      shutdownGraceMs: 10_000,
    };
    expect(await config()).toEqual(expected);
  });

  it('reads limits: unset keys take the defaults, maxWsFrameBytes follows maxBodyBytes', async () => {
    const { config } = await load({
      mcpServers: {},
      limits: { sessions: 5, maxBodyBytes: 1024 },
      shutdownGraceMs: 0,
    });
    const loaded = await config();
    expect(loaded.limits).toEqual({
      ...DEFAULT_LIMITS,
      sessions: 5,
      maxBodyBytes: 1024,
      maxWsFrameBytes: 1024,
    });
    expect(loaded.shutdownGraceMs).toBe(0);
    const { error } = await loadError({ mcpServers: {}, limits: { sessions: 0, busy: 1 } });
    expect(error.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['$.limits.sessions']));
    expect(error.message).toMatch(/busy/);
  });

  it('reads the limits on what upstreams send: maxResultBytes (32 MiB) and maxPagesPerList (1,000)', async () => {
    const defaults = await (await load({ mcpServers: {} })).config();
    expect(defaults.limits).toMatchObject({ maxResultBytes: 32 * 1024 * 1024, maxPagesPerList: 1000 });
    const { config } = await load({ mcpServers: {}, limits: { maxResultBytes: 1024, maxPagesPerList: 5 } });
    expect((await config()).limits).toMatchObject({ maxResultBytes: 1024, maxPagesPerList: 5 });
    const { error } = await loadError({
      mcpServers: {},
      limits: { maxResultBytes: 0, maxPagesPerList: 'x' },
    });
    expect(error.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(['$.limits.maxResultBytes', '$.limits.maxPagesPerList']),
    );
  });

  it('reads limits.maxJsonDepth (default 100, at most 1,000)', async () => {
    const defaults = await (await load({ mcpServers: {} })).config();
    expect(defaults.limits).toMatchObject({ maxJsonDepth: 100 });
    const { config } = await load({ mcpServers: {}, limits: { maxJsonDepth: 8 } });
    expect((await config()).limits).toMatchObject({ maxJsonDepth: 8 });
    for (const maxJsonDepth of [0, 1001, 2.5, '64']) {
      const { error } = await loadError({ mcpServers: {}, limits: { maxJsonDepth } });
      expect(
        error.issues.map((i) => i.path),
        String(maxJsonDepth),
      ).toEqual(['$.limits.maxJsonDepth']);
    }
  });

  it('serves stdio only when "listen" is omitted, and a stdio server without cwd runs in the config dir', async () => {
    const { config } = await load({ mcpServers: { a: { command: 'run-a' } } });
    const loaded = await config();
    expect(loaded.listen).toEqual({ stdio: true, http: undefined });
    expect(loaded.upstreams).toEqual([
      {
        name: 'a',
        prefix: true,
        timeoutMs: 30_000,
        transport: { kind: 'stdio', command: 'run-a', args: [], env: {}, cwd: dir },
      },
    ]);
    expect(loaded.cursorSecret).toBeUndefined();
    expect(loaded.logLevel).toBeUndefined();
  });

  it('applies listener defaults and allows an empty server map', () => {
    const config = parseConfig(
      { listen: { http: {} }, mcpServers: {} },
      { source: 'inline', baseDir: '/base', env: {} },
    );
    expect(config.listen).toEqual({
      stdio: false,
      http: { host: '127.0.0.1', port: 7480, path: '/mcp', allowedHosts: [], allowedOrigins: [] },
    });
    expect(config.upstreams).toEqual([]);
    expect(config.source).toBe('inline');
  });
});

describe('environment expansion', () => {
  const parse = (raw: unknown, env: NodeJS.ProcessEnv) =>
    parseConfig(raw, { source: '/etc/sy.json', baseDir: '/etc', env });
  const commandOf = (config: GatewayConfig) => {
    const t = config.upstreams[0]?.transport;
    return t?.kind === 'stdio' ? { command: t.command, args: t.args, env: t.env } : undefined;
  };

  it('expands ${VAR} and ${VAR:-default} anywhere in strings, arrays and nested objects', () => {
    const config = parse(
      server({
        command: '${BIN}',
        args: ['--a=${A}', '${B:-fallback}', '${C:-}', '${A}${A}', 'x${D:-d d}y', 'plain $A {A} $'],
        env: { '${NOT_A_KEY}': '${A}' },
      }),
      { BIN: '/bin/tool', A: 'alpha', B: 'beta-set' },
    );
    expect(commandOf(config)).toEqual({
      command: '/bin/tool',
      args: ['--a=alpha', 'beta-set', '', 'alphaalpha', 'xd dy', 'plain $A {A} $'],
      env: { '${NOT_A_KEY}': 'alpha' },
    });
  });

  it('reads only the env it is given', () => {
    expect(process.env.PATH).toBeDefined();
    expect(() => parse(server({ command: '${PATH}' }), {})).toThrow(ConfigError);
    expect(commandOf(parse(server({ command: '${PATH}' }), { PATH: '/only/this' }))?.command).toBe(
      '/only/this',
    );
  });

  it('reports an unset variable at the JSON path of the string that uses it', async () => {
    const { file, error } = await loadError({
      mcpServers: {
        files: { command: 'node', args: ['a', '${ROOT}'] },
        docs: { url: 'https://x.example/mcp', headers: { 'X-Api-Key': '${API_KEY}', Auth: '${AUTH}' } },
      },
    });
    expectIssue(error, file, '$.mcpServers.files.args[1]', 'environment variable ${ROOT} is not set');
    expectIssue(
      error,
      file,
      '$.mcpServers.docs.headers["X-Api-Key"]',
      'environment variable ${API_KEY} is not set',
    );
    expectIssue(error, file, '$.mcpServers.docs.headers.Auth', 'environment variable ${AUTH} is not set');
  });

  // Regression: `:-` means unset *or empty* in the shell and Compose; an empty VAR used to win over the default.
  it('${VAR:-default} uses the default when VAR is set but empty, like the shell', () => {
    expect(commandOf(parse(server({ command: '${BIN:-/bin/default}' }), { BIN: '' }))?.command).toBe(
      '/bin/default',
    );
  });
});

describe('store (DESIGN §12)', () => {
  it('takes store.redis with its defaults, and listen.http.advertise', async () => {
    const { config } = await load({
      listen: { http: { port: 0, advertise: 'http://10.0.3.7:7480' } },
      store: { redis: { url: 'redis://redis.internal:6379/0' } },
      mcpServers: {},
    });
    const loaded = await config();
    expect(loaded.store).toEqual({
      redis: {
        url: 'redis://redis.internal:6379/0',
        keyPrefix: 'switchyard:',
        onUnavailable: 'local',
        commandTimeoutMs: 1000,
      },
    });
    expect(loaded.listen.http?.advertise).toBe('http://10.0.3.7:7480');
  });

  it('names the path of a bad store setting', async () => {
    const url = await loadError({ store: { redis: { url: 'http://redis:6379' } }, mcpServers: {} });
    expectIssue(url.error, url.file, '$.store.redis.url', 'must be a redis:// or rediss:// URL');
    const policy = await loadError({
      store: { redis: { url: 'redis://r', onUnavailable: 'ignore' } },
      mcpServers: {},
    });
    expectIssue(policy.error, policy.file, '$.store.redis.onUnavailable', /local|refuse/);
    const unknown = await loadError({ store: { memcached: {} }, mcpServers: {} });
    expectIssue(unknown.error, unknown.file, '$.store', 'unknown key(s) "memcached"');
    const advertise = await loadError({ listen: { http: { advertise: 'ftp://x' } }, mcpServers: {} });
    expectIssue(advertise.error, advertise.file, '$.listen.http.advertise', 'must be an http:// URL');
  });
});

describe('ConfigError: each problem names the file, the JSON path and what is wrong', () => {
  it('rejects a server name that cannot be a URI prefix', async () => {
    for (const name of ['Docs', 'my_docs', '1docs', 'a+b']) {
      const { file, error } = await loadError({ mcpServers: { [name]: { command: 'x' } } });
      const path = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)
        ? `$.mcpServers.${name}`
        : `$.mcpServers["${name}"]`;
      expectIssue(error, file, path, /./);
    }
  });

  it('says what a plugins entry is (found from outside: `Invalid input`, and "" loaded `node_modules//index.js`)', async () => {
    const shape = 'each plugin is ["<package or path>"] or ["<package or path>", { options }]';
    for (const entry of [[42], ['x', 'deny'], ['a', {}, 1], 'x']) {
      const { file, error } = await loadError({ mcpServers: {}, plugins: [entry] });
      expectIssue(error, file, '$.plugins[0]', shape);
    }
    const { file, error } = await loadError({ mcpServers: {}, plugins: [['']] });
    expectIssue(error, file, '$.plugins[0][0]', 'name the plugin: its package name or a path to its module');
  });

  // Regression: zod's generic "Invalid key in record" used to replace the schema's own explanation.
  it('says why a server name is refused', async () => {
    const { file, error } = await loadError({ mcpServers: { Docs: { command: 'x' } } });
    expectIssue(error, file, '$.mcpServers.Docs', 'server names must match ^[a-z][a-z0-9-]*$');
  });

  it('refuses "__proto__" as a key anywhere, JSON or YAML (assigned, it would set hidden keys)', async () => {
    // Found from outside: a server named __proto__ vanished, and a virtual server's "__proto__" entry was
    // read as its tools globs.
    const texts = [
      '{"mcpServers": {"__proto__": {"command": "x"}}}',
      '{"mcpServers": {"docs": {"command": "x"}}, "virtualServers": {"x": {"servers": ["docs"], "__proto__": {"tools": {"allow": ["none"]}}}}}',
    ];
    const paths = ['$.mcpServers.__proto__', '$.virtualServers.x.__proto__'];
    for (const [i, text] of texts.entries()) {
      const { file, config } = await load(text);
      const error = (await config().catch((e: unknown) => e)) as ConfigError;
      expect(error, text).toBeInstanceOf(ConfigError);
      expectIssue(error, file, paths[i]!, '"__proto__" is not allowed as a key');
    }
    const { file, config } = await load(
      'mcpServers:\n  docs:\n    command: x\n    __proto__:\n      args: [a]\n',
      {},
      'switchyard.yaml',
    );
    const error = (await config().catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expectIssue(error, file, '$.mcpServers.docs.__proto__', '"__proto__" is not allowed as a key');
  });

  it('reports unknown keys with their path, at every level', async () => {
    const stdio = await loadError(server({ command: 'x', ars: ['a'] }));
    expectIssue(stdio.error, stdio.file, '$.mcpServers.docs', 'unknown key(s) "ars"');

    const remote = await loadError(server({ url: 'https://x.example/mcp', headrs: {} }));
    expectIssue(remote.error, remote.file, '$.mcpServers.docs', 'unknown key(s) "headrs"');

    const listen = await loadError({ listen: { stdio: true, htp: {} }, mcpServers: {} });
    expectIssue(listen.error, listen.file, '$.listen', 'unknown key(s) "htp"');

    const top = await loadError({ mcpServer: {}, mcpServers: {} });
    expectIssue(top.error, top.file, '$', 'unknown key(s) "mcpServer"');

    const http = await loadError({ listen: { http: { prot: 1 } }, mcpServers: {} });
    expectIssue(http.error, http.file, '$.listen.http', 'unknown key(s) "prot"');
  });

  it('reports a misspelt "command" as a missing command', async () => {
    const { file, error } = await loadError(server({ comand: 'npx', args: [] }));
    expectIssue(error, file, /^\$\.mcpServers\.docs(\.command)?$/, /"command"/);
  });

  // Regression: a plain z.union of the two server shapes collapsed type-level failures (a misspelt "command",
  // "prefix": "no", …) into one generic message at $.mcpServers.<name>, losing the offending key and path.
  it('names the misspelt key "comand"', async () => {
    const { file, error } = await loadError(server({ comand: 'npx', args: [] }));
    expectIssue(error, file, '$.mcpServers.docs', 'unknown key(s) "comand"');
  });

  it('reports a wrongly typed field of a server entry at its own path', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ command: 'x', prefix: 'no' }, '$.mcpServers.docs.prefix'],
      [{ command: 'x', args: 'a b' }, '$.mcpServers.docs.args'],
      [{ command: 'x', timeoutMs: '1000' }, '$.mcpServers.docs.timeoutMs'],
      [
        { url: 'https://x.example/mcp', headers: { Authorization: 1 } },
        '$.mcpServers.docs.headers.Authorization',
      ],
    ];
    for (const [entry, path] of cases) {
      const { file, error } = await loadError(server(entry));
      expectIssue(error, file, path, /./);
    }
  });

  it('reports a server with neither command nor url, and an empty command', async () => {
    const neither = await loadError(server({ args: ['x'] }));
    const issue = expectIssue(neither.error, neither.file, /^\$\.mcpServers\.docs(\.command)?$/, '"command"');
    expect(issue.message).toContain('"url"');

    const empty = await loadError(server({ command: '' }));
    expectIssue(empty.error, empty.file, '$.mcpServers.docs.command', 'must be a non-empty command');
  });

  it('reports bad and unsupported URLs at the url path', async () => {
    const bad = await loadError(server({ url: 'not a url' }));
    expectIssue(bad.error, bad.file, '$.mcpServers.docs.url', 'must be an absolute URL');

    const ftp = await loadError(server({ url: 'ftp://files.example/' }));
    expectIssue(ftp.error, ftp.file, '$.mcpServers.docs.url', 'unsupported URL scheme "ftp:"');

    // "transport": "ws" with an http URL (and the reverse) is a mismatch, named at the url.
    const wsOverHttp = await loadError(server({ url: 'https://x.example/mcp', transport: 'ws' }));
    expectIssue(wsOverHttp.error, wsOverHttp.file, '$.mcpServers.docs.url', 'use ws: or wss:');
    const sseOverWs = await loadError(server({ url: 'wss://x.example/mcp', transport: 'sse' }));
    expectIssue(sseOverWs.error, sseOverWs.file, '$.mcpServers.docs.url', 'use http: or https:');

    const expanded = await loadError(server({ url: '${BASE}/mcp' }), { BASE: 'relative' });
    expectIssue(expanded.error, expanded.file, '$.mcpServers.docs.url', 'must be an absolute URL');
  });

  it('reports bad values with their path', async () => {
    const timeout = await loadError(server({ command: 'x', timeoutMs: 0 }));
    expectIssue(timeout.error, timeout.file, '$.mcpServers.docs.timeoutMs', /./);

    const remoteTimeout = await loadError(server({ url: 'https://x.example/mcp', timeoutMs: 7_200_000 }));
    expectIssue(remoteTimeout.error, remoteTimeout.file, '$.mcpServers.docs.timeoutMs', /./);

    const port = await loadError({ listen: { http: { port: 70_000 } }, mcpServers: {} });
    expectIssue(port.error, port.file, '$.listen.http.port', /./);

    const noListener = await loadError({ listen: { stdio: false }, mcpServers: {} });
    expectIssue(noListener.error, noListener.file, '$.listen', 'enable at least one listener');

    const notObject = await loadError([]);
    expectIssue(notObject.error, notObject.file, '$', /object/);

    const noServers = await loadError({});
    expectIssue(noServers.error, noServers.file, '$.mcpServers', /./);
  });

  it('reads clients with tokens from the environment, and never echoes a token in an error', async () => {
    const config = await (
      await load(
        {
          listen: { stdio: true },
          mcpServers: {},
          clients: {
            alice: { token: '${ALICE_TOKEN}', groups: ['platform'] },
            'ci-bot': { token: 'ci-secret-1' },
          },
          anonymous: 'local',
        },
        { ALICE_TOKEN: 'alice-secret-1' },
      )
    ).config();
    expect(config.clients).toEqual({
      alice: { token: 'alice-secret-1', groups: ['platform'] },
      'ci-bot': { token: 'ci-secret-1', groups: [] },
    });
    expect(config.anonymous).toBe('local');

    const unset = await loadError({ mcpServers: {}, clients: { alice: { token: '${ALICE_TOKEN}' } } });
    expectIssue(unset.error, unset.file, '$.clients.alice.token', 'ALICE_TOKEN');

    const shared = await loadError({
      mcpServers: {},
      clients: { alice: { token: 'same-secret-9' }, bob: { token: 'same-secret-9' } },
    });
    expectIssue(shared.error, shared.file, '$.clients.bob.token', 'same token as client "alice"');
    expect(shared.error.message).not.toContain('same-secret-9');

    const badName = await loadError({ mcpServers: {}, clients: { 'a b': { token: 'x' } }, anonymous: '' });
    expect(badName.error.message).toMatch(/whitespace/);
  });

  it('keeps plugins in config order with their options', () => {
    const config = parseConfig(
      { mcpServers: {}, plugins: [['./policy.js', { limit: 2 }], ['@switchyard/plugin-audit']] },
      { source: '/etc/sy.json', baseDir: '/etc', env: {} },
    );
    expect(config.plugins).toEqual([
      { specifier: './policy.js', options: { limit: 2 } },
      { specifier: '@switchyard/plugin-audit', options: {} },
    ]);
  });

  it('accepts WebSocket upstreams and the WebSocket listener', () => {
    const config = parseConfig(
      {
        listen: { ws: { port: 0 } },
        mcpServers: {
          sock: { url: 'wss://ws.example/mcp', headers: { Authorization: 'Bearer t' } },
          plain: { url: 'ws://127.0.0.1:3003/mcp', transport: 'ws' },
        },
      },
      { source: '/etc/sy.json', baseDir: '/etc', env: {} },
    );
    expect(config.listen.ws).toMatchObject({ host: '127.0.0.1', port: 0, path: '/mcp' });
    expect(config.listen.stdio).toBe(false);
    expect(config.upstreams.map((u) => u.transport)).toEqual([
      { kind: 'ws', url: 'wss://ws.example/mcp', headers: { Authorization: 'Bearer t' } },
      { kind: 'ws', url: 'ws://127.0.0.1:3003/mcp', headers: {} },
    ]);
  });

  it('collects every problem of a file into one error', async () => {
    const { file, error } = await loadError({
      mcpServers: { a: { command: '' }, b: { url: 'nope' }, c: { command: 'x', args: ['${MISSING}'] } },
    });
    expectIssue(error, file, '$.mcpServers.a.command', 'non-empty');
    expectIssue(error, file, '$.mcpServers.b.url', 'absolute URL');
    expectIssue(error, file, '$.mcpServers.c.args[0]', '${MISSING}');
    expect(error.message.endsWith('Fix the config and start again; nothing was started.')).toBe(true);
  });

  it('refuses a stdio cwd that is no folder, at its path (found from outside: `spawn node ENOENT`, retried for ever)', async () => {
    await writeFile(join(dir, 'a-file'), 'x');
    const { file, error } = await loadError({
      mcpServers: {
        t: { command: 'node', cwd: './nope' },
        'f-x': { command: 'node', cwd: join(dir, 'a-file') },
        off: { command: 'node', cwd: './nope', disabled: true },
        ok: { command: 'node', cwd: '.' },
      },
    });
    const missing = expectIssue(error, file, '$.mcpServers.t.cwd', `no such folder: ${join(dir, 'nope')}`);
    expect(missing.line).toBeDefined();
    expectIssue(error, file, '$.mcpServers["f-x"].cwd', `not a folder: ${join(dir, 'a-file')}`);
    expect(error.issues).toHaveLength(2);
  });

  it('reports a missing file', async () => {
    const file = join(dir, 'absent.json');
    const error = await loadConfigFile(file, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expectIssue(error as ConfigError, file, '$', 'cannot read config: file not found');
  });

  it('reports a path that cannot be read as a file', async () => {
    const error = await loadConfigFile(dir, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expectIssue(error as ConfigError, dir, '$', 'cannot read config');
  });

  it('reports invalid JSON', async () => {
    const { file, error } = await loadError('{ "mcpServers": { "docs": { "command": "x", } } }');
    expectIssue(error, file, '$', 'not valid JSON');
  });

  it('resolves a relative config path against the working directory', async () => {
    const { file } = await load({ mcpServers: {} }, {}, 'relative.json');
    const shown = relative(process.cwd(), file);
    expect(isAbsolute(shown)).toBe(false);
    const config = await loadConfigFile(shown, {});
    expect(config.source).toBe(file);
    expect(config.baseDir).toBe(dir);
  });
});

describe('the bundled example config', () => {
  it('is valid and resolves its stdio servers relative to the examples folder', async () => {
    const file = fileURLToPath(new URL('../../../examples/switchyard.json', import.meta.url));
    const config = await loadConfigFile(file, {});
    expect(config.listen.http).toMatchObject({ host: '127.0.0.1', port: 7480, path: '/mcp' });
    expect(config.upstreams.map((u) => u.name)).toEqual(['docs', 'tickets']);
    for (const u of config.upstreams) {
      expect(u.transport).toMatchObject({ kind: 'stdio', cwd: dirname(file) });
    }
  });
});
