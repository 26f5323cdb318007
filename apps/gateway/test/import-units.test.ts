import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../src/import/detect.js';
import { lineDiff } from '../src/import/diff.js';
import { convertEntry, type EntryContext } from '../src/import/entry.js';
import { defaultLocations } from '../src/import/locations.js';
import { normalizeName, uniqueName } from '../src/import/normalize-name.js';
import { parseSource, type SourceFile, type SourceIssue } from '../src/import/read-source.js';
import { mcpServersFormat } from '../src/import/sources/mcp-servers.js';
import { vscodeMcpFormat } from '../src/import/sources/vscode.js';
import { toConfig } from '../src/import/to-config.js';
import { inputVariable, rewriteVariables, type VariableFindings } from '../src/import/variables.js';
import { backupName, isSwitchyardEntry, rewriteClientFile } from '../src/import/write-back.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/import/', import.meta.url));

function fixture(name: string): SourceFile | SourceIssue {
  return parseSource(`${FIXTURES}${name}`, readFileSync(`${FIXTURES}${name}.txt`, 'utf8'));
}

function source(name: string): SourceFile {
  const parsed = fixture(name);
  if ('message' in parsed) throw new Error(parsed.message);
  return parsed;
}

describe('normalizeName', () => {
  it('lower-cases and turns every run of other characters into one dash', () => {
    expect(normalizeName('Brave Search')).toBe('brave-search');
    expect(normalizeName('local_tool')).toBe('local-tool');
    expect(normalizeName('GitHub')).toBe('github');
    expect(normalizeName('  My..Server!! ')).toBe('my-server');
    expect(normalizeName('already-fine-2')).toBe('already-fine-2');
  });

  it('gives a name that does not start with a letter a "server-" prefix, and an empty one "server"', () => {
    expect(normalizeName('123abc')).toBe('server-123abc');
    expect(normalizeName('_x')).toBe('x');
    expect(normalizeName('--')).toBe('server');
    expect(normalizeName('日本')).toBe('server');
    for (const name of ['123abc', '--', 'A b_C', 'Ω'])
      expect(normalizeName(name)).toMatch(/^[a-z][a-z0-9-]*$/);
  });

  it('uniqueName appends -2, -3… to a taken name', () => {
    expect(uniqueName('docs', new Set())).toBe('docs');
    expect(uniqueName('docs', new Set(['docs']))).toBe('docs-2');
    expect(uniqueName('docs', new Set(['docs', 'docs-2']))).toBe('docs-3');
  });
});

describe('toConfig', () => {
  it('renames collisions after normalising and imports an identical server of the same name once', () => {
    const plan = toConfig([
      { file: 'a', name: 'Docs', entry: { url: 'https://a.example/mcp' } },
      { file: 'b', name: 'docs', entry: { url: 'https://b.example/mcp' } },
      { file: 'c', name: 'DOCS', entry: { url: 'https://a.example/mcp' } },
      { file: 'c', name: 'docs_2', entry: { command: 'x' } },
    ]);
    expect(Object.keys(plan.config.mcpServers)).toEqual(['docs', 'docs-2', 'docs-2-2']);
    expect(plan.config.mcpServers['docs-2']).toEqual({ url: 'https://b.example/mcp' });
    expect(plan.names.map((n) => [n.name, n.as, n.duplicate])).toEqual([
      ['Docs', 'docs', false],
      ['docs', 'docs-2', false],
      ['DOCS', 'docs', true],
      ['docs_2', 'docs-2-2', false],
    ]);
    expect(plan.config.listen).toEqual({ stdio: true });
  });
});

describe('rewriteVariables', () => {
  const inputs = new Map([['github-token', { id: 'github-token', description: 'GitHub PAT' }]]);
  const run = (text: string, workspace?: string) => {
    const found: VariableFindings = { variables: new Map(), notes: new Set() };
    return { text: rewriteVariables(text, { inputs, workspace, home: '/home/me' }, found), found };
  };

  it('turns ${env:VAR} and ${input:id} into ${VAR} references and lists what to set', () => {
    const { text, found } = run('Bearer ${input:github-token} ${env:OTHER}');
    expect(text).toBe('Bearer ${GITHUB_TOKEN} ${OTHER}');
    expect(found.variables).toEqual(
      new Map([
        ['GITHUB_TOKEN', 'VS Code input "github-token": GitHub PAT'],
        ['OTHER', 'environment'],
      ]),
    );
    expect(inputVariable('9-lives')).toBe('_9_LIVES');
  });

  it('keeps ${VAR} and ${VAR:-default} as they are (Claude Code and Switchyard share them)', () => {
    const { text, found } = run('${API_BASE:-https://x.example}/mcp ${TOKEN}');
    expect(text).toBe('${API_BASE:-https://x.example}/mcp ${TOKEN}');
    expect([...found.variables.keys()]).toEqual(['API_BASE', 'TOKEN']);
  });

  it('replaces ${workspaceFolder} and ${userHome} with the folders, or a variable when there is no project', () => {
    expect(run('${workspaceFolder}/a ${userHome}/b', '/src/app').text).toBe('/src/app/a /home/me/b');
    const outside = run('${workspaceFolder}/a');
    expect(outside.text).toBe('${WORKSPACE_FOLDER}/a');
    expect(outside.found.variables.has('WORKSPACE_FOLDER')).toBe(true);
  });

  it('keeps a reference it cannot translate, with a note', () => {
    const { text, found } = run('${command:pick}');
    expect(text).toBe('${command:pick}');
    expect([...found.notes][0]).toContain('${command:pick}');
  });
});

describe('detectFormat', () => {
  it.each([
    ['claude_desktop_config.json', 'mcp-servers', [['mcpServers']]],
    ['cursor-mcp.json', 'mcp-servers', [['mcpServers']]],
    ['claude-code-mcp.json', 'mcp-servers', [['mcpServers']]],
    ['windsurf-mcp_config.json', 'windsurf', [['mcpServers']]],
    ['vscode-mcp.json', 'vscode-mcp', [['servers']]],
    ['vscode-settings.json', 'vscode-settings', [['mcp', 'servers']]],
    ['claude.json', 'claude-code', [['mcpServers'], ['projects', '/home/me/app', 'mcpServers']]],
  ])('recognises %s from its content', (name, format, paths) => {
    const detected = detectFormat(source(name));
    if (detected === 'unknown' || 'message' in detected) throw new Error(`not recognised: ${name}`);
    expect(detected.format.id).toBe(format);
    expect(detected.groups.map((g) => g.path)).toEqual(paths);
  });

  it('reports a syntax error with its line and column', () => {
    expect(fixture('bad-json.json')).toMatchObject({
      file: `${FIXTURES}bad-json.json`,
      message: 'not valid JSON (CommaExpected)',
      line: 4,
      column: 5,
    });
  });

  it('reports a server list of the wrong shape at its JSON path, and an unknown file as unknown', () => {
    expect(detectFormat(source('wrong-shape.json'))).toMatchObject({
      path: '$.mcpServers',
      message: 'expected an object of servers (name → entry), found an array',
      line: 2,
      column: 17,
    });
    expect(detectFormat(source('unknown-format.json'))).toBe('unknown');
    expect(detectFormat(parseSource('x', '[1, 2]') as SourceFile)).toMatchObject({
      message: 'expected a JSON object at the top level',
    });
  });
});

describe('convertEntry', () => {
  function convert(raw: unknown, text = '{}', name = 'x') {
    const ctx: EntryContext = {
      source: { file: 'f.json', text, value: undefined },
      path: ['mcpServers', name],
      inputs: new Map(),
      home: '/home/me',
      issues: [],
      notes: [],
      found: { variables: new Map(), notes: new Set() },
    };
    return { entry: convertEntry(raw, ctx), ...ctx };
  }

  it('keeps stdio command, args, env and cwd, and drops what Switchyard does not read, with a note', () => {
    const { entry, notes } = convert({
      type: 'stdio',
      command: 'node',
      args: ['s.js', 3],
      env: { A: 'b', N: 1 },
      cwd: '/srv',
      alwaysAllow: ['x'],
    });
    expect(entry).toEqual({ command: 'node', args: ['s.js', '3'], env: { A: 'b', N: '1' }, cwd: '/srv' });
    expect(notes).toEqual(['x: not imported: "alwaysAllow" (f.json)']);
  });

  it('maps type/transport to Switchyard transports: http → Streamable HTTP (default), sse → "sse"', () => {
    expect(convert({ type: 'http', url: 'https://a/mcp' }).entry).toEqual({ url: 'https://a/mcp' });
    expect(convert({ type: 'streamable-http', url: 'https://a/mcp' }).entry).toEqual({
      url: 'https://a/mcp',
    });
    expect(convert({ type: 'sse', url: 'https://a/events' }).entry).toEqual({
      url: 'https://a/events',
      transport: 'sse',
    });
    expect(convert({ transport: 'sse', url: 'https://a/e' }).entry).toMatchObject({ transport: 'sse' });
    expect(convert({ serverUrl: 'https://w/mcp', headers: { A: 'b' } }).entry).toEqual({
      url: 'https://w/mcp',
      headers: { A: 'b' },
    });
    const guessed = convert({ url: 'http://127.0.0.1:3002/sse' });
    expect(guessed.entry).toEqual({ url: 'http://127.0.0.1:3002/sse', transport: 'sse' });
    expect(guessed.notes[0]).toContain('legacy SSE');
  });

  it('keeps disabled: true', () => {
    expect(convert({ command: 'x', disabled: true }).entry).toEqual({ command: 'x', disabled: true });
    expect(convert({ command: 'x', disabled: false }).entry).toEqual({ command: 'x' });
  });

  it('reports unusable entries at their JSON path with line and column', () => {
    const text = readFileSync(`${FIXTURES}wrong-entry.json.txt`, 'utf8');
    const { entry, issues } = convert({ command: 'npx', args: '-y server' }, text, 'broken');
    expect(entry).toBeUndefined();
    expect(issues).toEqual([
      {
        file: 'f.json',
        path: '$.mcpServers.broken.args',
        message: 'expected an array of strings, found a string',
        line: 4,
        column: 43,
      },
    ]);
    expect(convert({}).issues[0]?.message).toContain('needs "command" (stdio) or "url"');
    const bad = (raw: unknown) => convert(raw).issues[0]?.message;
    expect(bad({ type: 'carrier-pigeon', url: 'https://a' })).toContain(
      'unknown server type "carrier-pigeon"',
    );
    expect(bad({ type: 'http', command: 'x' })).toContain('does not go with "command"');
    expect(bad({ command: '' })).toBe('expected a non-empty command string');
    expect(bad({ command: 'x', env: { A: { nested: 1 } } })).toBe('expected a string, found an object');
    expect(bad('npx foo')).toBe('expected a server entry object, found a string');
  });
});

describe('defaultLocations', () => {
  it('lists each client’s documented files on macOS', () => {
    const files = defaultLocations({ platform: 'darwin', home: '/Users/me', cwd: '/src/app' }).map(
      (l) => l.file,
    );
    expect(files).toEqual([
      '/Users/me/Library/Application Support/Claude/claude_desktop_config.json',
      '/Users/me/.claude.json',
      '/Users/me/.cursor/mcp.json',
      '/Users/me/Library/Application Support/Code/User/mcp.json',
      '/Users/me/Library/Application Support/Code/User/settings.json',
      '/Users/me/.codeium/windsurf/mcp_config.json',
      '/src/app/.mcp.json',
      '/src/app/.cursor/mcp.json',
      '/src/app/.vscode/mcp.json',
    ]);
  });

  it('uses %APPDATA% on Windows and $XDG_CONFIG_HOME (or ~/.config) on Linux', () => {
    const win = defaultLocations({
      platform: 'win32',
      home: 'C:\\Users\\me',
      appData: 'C:\\Users\\me\\AppData\\Roaming',
      cwd: 'C:\\src',
    });
    expect(win[0]).toEqual({
      client: 'claude-desktop',
      file: 'C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    });
    expect(win[3]?.file).toBe('C:\\Users\\me\\AppData\\Roaming\\Code\\User\\mcp.json');
    expect(win[5]?.file).toBe('C:\\Users\\me\\.codeium\\windsurf\\mcp_config.json');
    const linux = defaultLocations({ platform: 'linux', home: '/home/me', cwd: '/src' });
    expect(linux[0]?.file).toBe('/home/me/.config/Claude/claude_desktop_config.json');
    expect(linux[3]?.file).toBe('/home/me/.config/Code/User/mcp.json');
    const xdg = defaultLocations({ platform: 'linux', home: '/home/me', xdgConfigHome: '/cfg', cwd: '/src' });
    expect(xdg[3]?.file).toBe('/cfg/Code/User/mcp.json');
  });
});

describe('write-back', () => {
  it('recognises the entries that start Switchyard', () => {
    expect(isSwitchyardEntry({ command: 'npx', args: ['-y', 'switchyard', '--config', '/x.json'] })).toBe(
      true,
    );
    expect(isSwitchyardEntry({ command: 'npx', args: ['switchyard@0.2.0', '--config', '/x.json'] })).toBe(
      true,
    );
    expect(isSwitchyardEntry({ command: '/usr/local/bin/switchyard', args: [] })).toBe(true);
    expect(isSwitchyardEntry({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] })).toBe(
      false,
    );
    expect(isSwitchyardEntry({ url: 'http://127.0.0.1:7480/mcp' })).toBe(false);
  });

  it('replaces the imported entries with one Switchyard entry and keeps comments and other keys', () => {
    const before = readFileSync(`${FIXTURES}cursor-mcp.json.txt`, 'utf8');
    const after = rewriteClientFile(
      before,
      mcpServersFormat,
      [
        ['mcpServers', 'docs'],
        ['mcpServers', 'legacy'],
      ],
      '/cfg/switchyard.json',
    );
    expect(after).toContain('// Cursor allows comments and trailing commas');
    const parsed = parseSource('f', after) as SourceFile;
    expect(parsed.value).toEqual({
      mcpServers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], disabled: true },
        filesystem: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/src'],
        },
        switchyard: { command: 'npx', args: ['-y', 'switchyard', '--config', '/cfg/switchyard.json'] },
      },
    });
    // Once more with nothing left to remove: the Switchyard entry is rewritten in place, unchanged.
    expect(rewriteClientFile(after, mcpServersFormat, [], '/cfg/switchyard.json')).toBe(after);
  });

  it('writes VS Code entries with "type": "stdio" and reuses a Switchyard entry under another name', () => {
    const text = JSON.stringify(
      {
        servers: { gateway: { command: 'switchyard', args: ['--config', '/old.json'] }, a: { command: 'x' } },
      },
      null,
      4,
    );
    const after = rewriteClientFile(text, vscodeMcpFormat, [['servers', 'a']], '/new.json');
    expect(JSON.parse(after)).toEqual({
      servers: {
        gateway: { type: 'stdio', command: 'npx', args: ['-y', 'switchyard', '--config', '/new.json'] },
      },
    });
    expect(after).toContain('\n    "servers"'); // the file's own four-space indent
  });

  it('gives an imported server that was named "switchyard" its place to the Switchyard entry', () => {
    const text = '{"mcpServers":{"switchyard":{"command":"old"},"b":{"command":"x"}}}';
    const removed = [
      ['mcpServers', 'switchyard'],
      ['mcpServers', 'b'],
    ];
    expect(JSON.parse(rewriteClientFile(text, mcpServersFormat, removed, '/c.json'))).toEqual({
      mcpServers: { switchyard: { command: 'npx', args: ['-y', 'switchyard', '--config', '/c.json'] } },
    });
  });

  it('names backups <file>.switchyard-backup-<ISO time> with - for : (Windows file names)', () => {
    expect(backupName('/a/mcp.json', new Date('2026-11-26T01:02:03.004Z'))).toBe(
      '/a/mcp.json.switchyard-backup-2026-11-26T01-02-03.004Z',
    );
  });

  it('shows a unified-style diff of the change', () => {
    const diff = lineDiff('a\nb\nc\nd\n', 'a\nb\nX\nd\n', 'f.json');
    expect(diff).toBe('--- f.json\n+++ f.json (new)\n@@ -1,4 +1,4 @@\n a\n b\n-c\n+X\n d\n');
    expect(lineDiff('same', 'same', 'f')).toBe('');
  });
});
