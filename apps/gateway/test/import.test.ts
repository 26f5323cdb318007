import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../src/config/load.js';
import { type ImportOptions, runImport } from '../src/import/command.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/import/', import.meta.url));

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A temp project folder (the cwd) with a home folder inside it. */
async function workspace() {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-import-'));
  dirs.push(dir);
  const home = join(dir, 'home');
  await mkdir(home);
  return { dir, home };
}

/** Copies a fixture to `to` (folders made). */
async function place(name: string, to: string): Promise<string> {
  await mkdir(dirname(to), { recursive: true });
  await copyFile(`${FIXTURES}${name}.txt`, to);
  return to;
}

async function importing(dir: string, home: string, options: Partial<ImportOptions> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runImport(
    {
      files: [],
      locations: { platform: 'linux', home, cwd: dir },
      now: () => new Date('2026-11-26T10:00:00.000Z'),
      ...options,
    },
    (text) => {
      stdout += text;
    },
    (text) => {
      stderr += text;
    },
  );
  return { code, stdout, stderr };
}

const written = async (file: string) => JSON.parse(await readFile(file, 'utf8'));

describe('switchyard import (each client)', () => {
  it('Claude Desktop: stdio servers with their env kept as written; names normalised', async () => {
    const { dir, home } = await workspace();
    const file = await place('claude_desktop_config.json', join(dir, 'claude_desktop_config.json'));
    const result = await importing(dir, home, { files: [file] });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`imported 2 servers from 1 file into ${join(dir, 'switchyard.json')}\n`);
    expect(await written(join(dir, 'switchyard.json'))).toEqual({
      listen: { stdio: true },
      mcpServers: {
        filesystem: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'],
        },
        'brave-search': {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-brave-search'],
          env: { BRAVE_API_KEY: '${BRAVE_API_KEY}' },
        },
      },
    });
    expect(result.stderr).toContain('Brave Search');
    expect(result.stderr).toContain('imported as "brave-search"');
    expect(result.stderr).toMatch(/^ {2}BRAVE_API_KEY {2}\(environment\)$/m);
    // The gateway's own loader accepts it once the variable is set.
    const config = await loadConfigFile(join(dir, 'switchyard.json'), { BRAVE_API_KEY: 'k' });
    expect(config.upstreams.map((u) => u.name)).toEqual(['filesystem', 'brave-search']);
  });

  it('Cursor (JSONC): remote with ${env:VAR} headers, a /sse URL as legacy SSE, a disabled server kept disabled', async () => {
    const { dir, home } = await workspace();
    const file = await place('cursor-mcp.json', join(dir, '.cursor', 'mcp.json'));
    const result = await importing(dir, home, { files: [file] });
    expect(result.code, result.stderr).toBe(0);
    expect((await written(join(dir, 'switchyard.json'))).mcpServers).toEqual({
      docs: { url: 'https://docs.example.com/mcp', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } },
      legacy: { url: 'http://127.0.0.1:3002/sse', transport: 'sse' },
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], disabled: true },
      filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/src'] },
    });
    expect(result.stderr).toContain('memory: disabled in');
    expect(result.stderr).toContain('DOCS_TOKEN');
    expect(result.stderr).not.toContain('Bearer'); // the note names variables, never values
    const config = await loadConfigFile(join(dir, 'switchyard.json'), { DOCS_TOKEN: 't' });
    expect(config.upstreams.map((u) => [u.name, u.transport.kind])).toEqual([
      ['docs', 'http'],
      ['legacy', 'sse'],
      ['filesystem', 'stdio'],
    ]);
  });

  it('VS Code mcp.json: ${input:id} and ${env:VAR} become ${VAR} with the inputs to set listed; ${workspaceFolder} the project', async () => {
    const { dir, home } = await workspace();
    const file = await place('vscode-mcp.json', join(dir, '.vscode', 'mcp.json'));
    const result = await importing(dir, home, { files: [file] });
    expect(result.code, result.stderr).toBe(0);
    expect((await written(join(dir, 'switchyard.json'))).mcpServers).toEqual({
      github: {
        url: 'https://api.githubcopilot.com/mcp/',
        headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' },
      },
      events: { url: 'https://events.example.com/stream', transport: 'sse' },
      'local-tool': {
        command: 'node',
        args: [`${dir}/tools/server.js`],
        env: { API_KEY: '${LOCAL_API_KEY}' },
      },
    });
    expect(result.stderr).toMatch(
      /GITHUB_TOKEN {2}\(VS Code input "github-token": GitHub personal access token\)/,
    );
    expect(result.stderr).toMatch(/LOCAL_API_KEY {2}\(environment\)/);
    expect(result.stderr).toContain('local_tool: not imported: "envFile"');
    await loadConfigFile(join(dir, 'switchyard.json'), { GITHUB_TOKEN: 'g', LOCAL_API_KEY: 'l' });
  });

  it('VS Code settings.json ("mcp" key), Windsurf (serverUrl) and Claude Code (~/.claude.json, .mcp.json)', async () => {
    const { dir, home } = await workspace();
    const files = [
      await place('vscode-settings.json', join(dir, 'settings.json')),
      await place('windsurf-mcp_config.json', join(dir, 'mcp_config.json')),
      await place('claude.json', join(dir, 'claude.json')),
      await place('claude-code-mcp.json', join(dir, '.mcp.json')),
    ];
    const result = await importing(dir, home, { files });
    expect(result.code, result.stderr).toBe(0);
    expect((await written(join(dir, 'switchyard.json'))).mcpServers).toEqual({
      fetch: { command: 'uvx', args: ['mcp-server-fetch'] },
      'remote-docs': {
        url: 'https://docs.example.com/mcp',
        headers: { Authorization: 'Bearer ${DOCS_TOKEN}' },
      },
      git: { command: 'uvx', args: ['mcp-server-git'] },
      sentry: { url: 'https://mcp.sentry.dev/mcp' },
      db: {
        command: 'npx',
        args: ['-y', 'db-mcp'],
        env: { DATABASE_URL: '${DATABASE_URL:-postgres://localhost/app}' },
      },
      api: {
        url: '${API_BASE_URL:-https://api.example.com}/mcp',
        headers: { Authorization: 'Bearer ${API_KEY}' },
      },
      'old-events': { url: 'https://events.example.com/sse', transport: 'sse' },
    });
    expect(result.stdout).toContain('imported 7 servers from 4 files');
    expect(result.stderr).toContain('git: not imported: "alwaysAllow"');
    const config = await loadConfigFile(join(dir, 'switchyard.json'), { DOCS_TOKEN: 'd', API_KEY: 'a' });
    expect(config.upstreams).toHaveLength(7);
  });

  it('gives colliding names -2, -3… across files', async () => {
    const { dir, home } = await workspace();
    const files = [
      await place('claude_desktop_config.json', join(dir, 'a.json')),
      await place('cursor-mcp.json', join(dir, 'b.json')),
    ];
    await writeFile(join(dir, 'c.json'), JSON.stringify({ mcpServers: { FileSystem: { command: 'fs' } } }));
    const result = await importing(dir, home, { files: [...files, join(dir, 'c.json')] });
    expect(result.code, result.stderr).toBe(0);
    const servers = (await written(join(dir, 'switchyard.json'))).mcpServers;
    expect(Object.keys(servers)).toEqual([
      'filesystem',
      'brave-search',
      'docs',
      'legacy',
      'memory',
      'filesystem-2',
      'filesystem-3',
    ]);
    expect(servers['filesystem-3']).toEqual({ command: 'fs' });
    expect(result.stderr).toContain(`FileSystem (${join(dir, 'c.json')}): imported as "filesystem-3"`);
  });
});

describe('switchyard import (errors: nothing written)', () => {
  it.each([
    ['bad-json.json', /bad-json\.json:4:5: not valid JSON \(CommaExpected\)/],
    ['wrong-shape.json', /wrong-shape\.json:2:17: \$\.mcpServers: expected an object of servers/],
    [
      'wrong-entry.json',
      /wrong-entry\.json:4:43: \$\.mcpServers\.broken\.args: expected an array of strings/,
    ],
    ['unknown-format.json', /unknown-format\.json: not a client MCP config: no "mcpServers"/],
  ])('%s beside a good file: a clear message, exit 1, no config, no write-back', async (name, message) => {
    const { dir, home } = await workspace();
    const good = await place('claude_desktop_config.json', join(dir, 'good.json'));
    const bad = await place(name, join(dir, name));
    const before = await readFile(good, 'utf8');
    const result = await importing(dir, home, { files: [good, bad], writeBack: true });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Nothing was written.');
    expect(result.stdout).toBe('');
    expect(await readFile(good, 'utf8')).toBe(before);
    expect((await readdir(dir)).sort()).toEqual([name, 'good.json', 'home'].sort());
  });

  it('a missing file is an error too', async () => {
    const { dir, home } = await workspace();
    const result = await importing(dir, home, { files: [join(dir, 'nope.json')] });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(dir, 'nope.json')}: file not found`);
  });

  it('never overwrites the config without --force', async () => {
    const { dir, home } = await workspace();
    const file = await place('claude_desktop_config.json', join(dir, 'claude_desktop_config.json'));
    await writeFile(join(dir, 'mine.json'), '{"mcpServers":{}}\n');
    const refused = await importing(dir, home, { files: [file], out: 'mine.json' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${join(dir, 'mine.json')} exists; pass --force to overwrite it`);
    expect(await readFile(join(dir, 'mine.json'), 'utf8')).toBe('{"mcpServers":{}}\n');
    const forced = await importing(dir, home, { files: [file], out: 'mine.json', force: true });
    expect(forced.code, forced.stderr).toBe(0);
    expect(Object.keys((await written(join(dir, 'mine.json'))).mcpServers)).toEqual([
      'filesystem',
      'brave-search',
    ]);
  });
});

describe('switchyard import --write-back', () => {
  it('points ~/.claude.json at Switchyard: backup, diff, other keys kept, idempotent', async () => {
    const { dir, home } = await workspace();
    const file = await place('claude.json', join(home, '.claude.json'));
    const original = await readFile(file, 'utf8');
    const out = join(dir, 'switchyard.json');
    const first = await importing(dir, home, { writeBack: true });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('1 client file now starts Switchyard');

    const backup = `${file}.switchyard-backup-2026-11-26T10-00-00.000Z`;
    expect(await readFile(backup, 'utf8')).toBe(original);
    const after = JSON.parse(await readFile(file, 'utf8')); // still strict JSON
    expect(after).toEqual({
      numStartups: 12,
      theme: 'dark',
      mcpServers: {
        switchyard: { type: 'stdio', command: 'npx', args: ['-y', 'switchyard', '--config', out], env: {} },
      },
      projects: {
        '/home/me/app': { allowedTools: [], mcpServers: {} },
        '/home/me/other': { allowedTools: [] },
      },
    });
    expect(first.stderr).toContain(`--- ${file}\n+++ ${file} (new)\n@@ `);
    expect(first.stderr).toMatch(/^- {4}"sentry": /m);
    expect(first.stderr).toMatch(/^\+ {4}"switchyard": \{/m);
    expect(first.stderr).toContain(`backup: ${backup}`);
    const config = await readFile(out, 'utf8');

    const second = await importing(dir, home, { writeBack: true });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`nothing to import: ${file} lists only Switchyard. Nothing was written.`);
    expect(second.stdout).toBe('');
    expect(await readFile(out, 'utf8')).toBe(config);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(after);
    expect((await readdir(home)).filter((f) => f.includes('switchyard-backup'))).toHaveLength(1);
  });

  it('keeps JSONC comments of a Cursor file and only its own entries change', async () => {
    const { dir, home } = await workspace();
    const file = await place('cursor-mcp.json', join(dir, '.cursor', 'mcp.json'));
    const result = await importing(dir, home, { writeBack: true });
    expect(result.code, result.stderr).toBe(0);
    const text = await readFile(file, 'utf8');
    expect(text).toContain('// Cursor allows comments and trailing commas');
    expect(text).not.toContain('"docs"');
    expect(text).toContain(`"--config",\n        "${join(dir, 'switchyard.json')}"`);
    const again = await importing(dir, home, { writeBack: true, force: true });
    expect(again.code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(text);
  });
  it('edits only the "mcp" key of a VS Code settings.json', async () => {
    const { dir, home } = await workspace();
    const file = await place('vscode-settings.json', join(dir, 'settings.json'));
    const result = await importing(dir, home, { files: [file], writeBack: true });
    expect(result.code, result.stderr).toBe(0);
    const text = await readFile(file, 'utf8');
    expect(text).toContain('// MCP servers in the user settings');
    expect(text).toContain('"editor.fontSize": 14,');
    expect(text).toContain('"files.autoSave": "afterDelay"');
    expect(text).not.toContain('Fetch');
    expect(text).toContain(`"switchyard": {\n        "type": "stdio",`);
  });
});

describe('switchyard import (default locations)', () => {
  it("reads every client's files that exist under HOME and the project, skipping files without servers", async () => {
    const { dir, home } = await workspace();
    await place('cursor-mcp.json', join(home, '.cursor', 'mcp.json'));
    await place('windsurf-mcp_config.json', join(home, '.codeium', 'windsurf', 'mcp_config.json'));
    await mkdir(join(home, '.config', 'Code', 'User'), { recursive: true });
    await writeFile(join(home, '.config', 'Code', 'User', 'settings.json'), '{ "editor.fontSize": 14 }');
    await place('vscode-mcp.json', join(dir, '.vscode', 'mcp.json'));
    const result = await importing(dir, home);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('imported 9 servers from 3 files');
    expect(Object.keys((await written(join(dir, 'switchyard.json'))).mcpServers)).toEqual([
      'docs',
      'legacy',
      'memory',
      'filesystem',
      'remote-docs',
      'git',
      'github',
      'events',
      'local-tool',
    ]);
  });

  it('says where it looked when no client file exists', async () => {
    const { dir, home } = await workspace();
    const result = await importing(dir, home);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no client config found; looked for:');
    expect(result.stderr).toContain(`${join(home, '.claude.json')} (claude-code)`);
    expect(result.stderr).toContain(
      `${join(home, '.config', 'Claude', 'claude_desktop_config.json')} (claude-desktop)`,
    );
  });
});
