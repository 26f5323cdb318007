import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigIssue } from '../src/config/expand.js';
import { ConfigError, loadConfigFile } from '../src/config/load.js';
import { pathSegments } from '../src/config/source-positions.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchyard-yaml-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

async function loadError(name: string, text: string, env: NodeJS.ProcessEnv = {}) {
  const file = await write(name, text);
  const error = await loadConfigFile(file, env).then(
    (ok) => {
      throw new Error(`expected a ConfigError, got ${JSON.stringify(ok)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return { file, error: error as ConfigError };
}

/** The issue at `path` whose message matches, at `line`:`column`, spelled out in the error message. */
function expectIssueAt(
  { file, error }: { file: string; error: ConfigError },
  path: string,
  message: string | RegExp,
  line: number,
  column: number,
): ConfigIssue {
  expect(error.message).toContain(`Invalid config ${file}:`);
  const issue = error.issues.find(
    (i) =>
      i.path === path &&
      (typeof message === 'string' ? i.message.includes(message) : message.test(i.message)),
  );
  expect(issue, `no issue at ${path} matching ${message}; got ${JSON.stringify(error.issues)}`).toBeDefined();
  expect({ line: issue?.line, column: issue?.column }).toEqual({ line, column });
  expect(error.message).toContain(`  - ${issue?.path}: ${issue?.message} (line ${line}, column ${column})`);
  return issue as ConfigIssue;
}

const YAML_CONFIG = `# The same gateway as switchyard.json, in YAML.
listen:
  stdio: true
  http: { port: 0, allowedHosts: [gw.local] }
mcpServers:
  files:
    command: node
    args: [server.js, --root, "\${ROOT}"]
    env: { TOKEN: "\${FILES_TOKEN}" }
    cwd: servers/files
    timeoutMs: 1000
  docs:
    url: https://docs.example.com/mcp
    headers:
      Authorization: "Bearer \${DOCS_TOKEN:-anonymous}"
    tools: { allow: ["search_*"], deny: ["*_delete"] }
  legacy: { transport: sse, url: "http://127.0.0.1:9000/sse", prefix: false }
plugins:
  - ["@switchyard/plugin-audit", { file: ./audit.jsonl }]
cursorSecret: "yes"
logLevel: debug
`;

const JSON_TWIN = {
  listen: { stdio: true, http: { port: 0, allowedHosts: ['gw.local'] } },
  mcpServers: {
    files: {
      command: 'node',
      args: ['server.js', '--root', '${ROOT}'],
      env: { TOKEN: '${FILES_TOKEN}' },
      cwd: 'servers/files',
      timeoutMs: 1000,
    },
    docs: {
      url: 'https://docs.example.com/mcp',
      headers: { Authorization: 'Bearer ${DOCS_TOKEN:-anonymous}' },
      tools: { allow: ['search_*'], deny: ['*_delete'] },
    },
    legacy: { transport: 'sse', url: 'http://127.0.0.1:9000/sse', prefix: false },
  },
  plugins: [['@switchyard/plugin-audit', { file: './audit.jsonl' }]],
  cursorSecret: 'yes',
  logLevel: 'debug',
};

describe('YAML configs', () => {
  it('a valid YAML config loads exactly like its JSON twin (.yaml and .yml)', async () => {
    const env = { ROOT: '/data', FILES_TOKEN: 't0k3n' };
    await mkdir(join(dir, 'servers/files'), { recursive: true });
    const fromJson = await loadConfigFile(await write('switchyard.json', JSON.stringify(JSON_TWIN)), env);
    for (const name of ['switchyard.yaml', 'switchyard.yml']) {
      const file = await write(name, YAML_CONFIG);
      const fromYaml = await loadConfigFile(file, env);
      expect(fromYaml).toEqual({ ...fromJson, source: file });
    }
    expect(fromJson.upstreams[0]?.transport).toMatchObject({ args: ['server.js', '--root', '/data'] });
  });

  it('places schema problems by line and column, with the same messages as JSON', async () => {
    const bad = await loadError(
      'bad.yaml',
      [
        'mcpServers:', // 1
        '  files:', // 2
        '    comand: node', // 3
        '  remote:', // 4
        '    url: http://127.0.0.1:1/mcp', // 5
        '    timeoutMs: soon', // 6
        '    headers: { X-Key: "${NOT_SET}" }', // 7
      ].join('\n'),
    );
    // A missing key (and an unknown one) points at the entry itself.
    expectIssueAt(bad, '$.mcpServers.files', 'either "command" (stdio) or "url"', 3, 5);
    expectIssueAt(bad, '$.mcpServers.files', 'unknown key(s) "comand"', 3, 5);
    expectIssueAt(bad, '$.mcpServers.remote.timeoutMs', /number/, 6, 16);
    expectIssueAt(
      bad,
      '$.mcpServers.remote.headers["X-Key"]',
      'environment variable ${NOT_SET} is not set',
      7,
      23,
    );

    const scheme = await loadError(
      'scheme.yaml',
      'mcpServers:\n  docs:\n    url: ftp://docs.example.com/mcp\n',
    );
    expectIssueAt(scheme, '$.mcpServers.docs.url', 'unsupported URL scheme "ftp:"', 3, 10);
  });

  it('reports YAML syntax errors and duplicate keys with line and column', async () => {
    const syntax = await loadError('syntax.yml', 'mcpServers:\n  docs: { url: "http://x/mcp"\nplugins: []\n');
    expect(syntax.error.issues[0]?.message).toMatch(/^not valid YAML: /);
    expect(syntax.error.issues[0]?.line).toBeGreaterThanOrEqual(2);
    expect(syntax.error.message).toMatch(/\(line \d+, column \d+\)/);

    const duplicate = await loadError(
      'dup.yaml',
      'mcpServers:\n  docs:\n    url: http://a/mcp\n  docs:\n    url: http://b/mcp\n',
    );
    expectIssueAt(duplicate, '$', /not valid YAML: .*unique/i, 4, 3);

    const twoDocs = await loadError('two.yaml', 'mcpServers: {}\n---\nmcpServers: {}\n');
    expectIssueAt(twoDocs, '$', 'a config is one YAML document', 2, 1);
  });

  it('JSON problems get line and column too', async () => {
    const schema = await loadError(
      'bad.json',
      '{\n  "mcpServers": {\n    "docs": { "url": "ftp://x/mcp" }\n  }\n}\n',
    );
    expectIssueAt(schema, '$.mcpServers.docs.url', 'unsupported URL scheme', 3, 22);
    const syntax = await loadError('syntax.json', '{\n  "mcpServers": {},\n}\n');
    expect(syntax.error.issues[0]?.message).toMatch(/^not valid JSON: /);
    expect(syntax.error.issues[0]?.line).toBe(3);
    // Found from outside: a trailing comma in an array had no line, and V8's message quoted the whole file.
    const trailing = await loadError(
      'trailing.json',
      '{\n  "mcpServers": {},\n  "plugins": [\n    "x",\n  ]\n}\n',
    );
    expect(trailing.error.issues[0]).toMatchObject({
      message: "not valid JSON: Unexpected token ']'",
      line: 4,
      column: 8,
    });
    // A key given twice is refused as in YAML (JSON.parse kept the last: a second "mcpServers" dropped the first's).
    const twice = await loadError(
      'twice.json',
      '{\n  "mcpServers": { "a": { "command": "x" } },\n  "mcpServers": {}\n}\n',
    );
    expect(twice.error.issues[0]).toMatchObject({
      message: 'not valid JSON config: the key "mcpServers" is given twice in one object',
      line: 3,
      column: 3,
    });
    // A byte order mark is no part of the JSON (some Windows editors write one).
    const file = await write('bom.json', '\ufeff{ "mcpServers": {} }');
    await expect(loadConfigFile(file, {})).resolves.toMatchObject({ upstreams: [] });
  });

  it('refuses a config nested past any real one, and reports a huge file without re-reading it to place lines', async () => {
    // Found from outside: 100,000 levels overflowed the stack (a RangeError, no file named); a 50 MB invalid
    // file froze a running gateway for 12 s while its problems were placed.
    const deep = await loadError('deep.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(deep.error.issues).toEqual([
      { path: '$', message: expect.stringContaining('nests more than 64') },
    ]);
    const huge = await loadError(
      'huge.json',
      JSON.stringify({ mcpServers: {}, junk: 'y'.repeat(2 * 1024 * 1024) }),
    );
    expect(huge.error.issues[0]).toMatchObject({ path: '$' });
    expect(huge.error.issues[0]?.line).toBeUndefined();
  });

  it('reads back the JSON paths it writes', () => {
    expect(pathSegments('$')).toEqual([]);
    expect(pathSegments('$.mcpServers["my-server"].args[2]')).toEqual(['mcpServers', 'my-server', 'args', 2]);
    expect(pathSegments('$.a["say \\"hi\\""]')).toEqual(['a', 'say "hi"']);
    expect(pathSegments('nonsense')).toBeUndefined();
  });
});
