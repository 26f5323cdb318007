import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, freePort, httpUpstream, spawnGateway, TESTKIT_CLI, tempDir } from './support/harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** Runs `switchyard check --config <file>` to completion. */
async function check(file: string) {
  const proc = spawnGateway(cleanup, ['check', '--config', file]);
  const code = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** The table's rows by server name, each split into its columns (STATUS keeps its spaces). */
function rows(stdout: string): Map<string, string[]> {
  const lines = stdout.split('\n');
  const header = lines[0] ?? '';
  expect(header).toMatch(
    /^SERVER\s+ERA\s+TRANSPORT\s+PROTOCOL\s+CONNECT_MS\s+RESOURCES\s+TEMPLATES\s+TOOLS\s+PROMPTS\s+STATUS$/,
  );
  const statusAt = header.indexOf('STATUS');
  const table = new Map<string, string[]>();
  for (const line of lines.slice(1)) {
    if (line.length <= statusAt || !/^[a-z]/.test(line)) continue;
    const cells = line.slice(0, statusAt).trim().split(/\s+/);
    table.set(cells[0] as string, [...cells, line.slice(statusAt)]);
  }
  return table;
}

const SECRET = 'Bearer s3cr3t-t0ken-value';

describe('switchyard check', () => {
  it('probes every upstream at once, prints what each exposes, and exits 1 when any fails or times out', async () => {
    const remote = await httpUpstream(cleanup, {
      name: 'remote',
      modern: true,
      resources: 5,
      templates: 3,
      tools: 4,
      prompts: 0,
      pageSize: 2,
    });
    // Answers the handshake, then holds every list past the upstream's timeoutMs (2 s: the handshake
    // itself must fit in it on a loaded machine).
    const slow = await httpUpstream(cleanup, { name: 'slow', latencyMs: 60_000 });
    const deadPort = await freePort();
    const dir = await tempDir(cleanup);
    const file = join(dir, 'switchyard.yaml');
    await writeFile(
      file,
      [
        'mcpServers:',
        '  local:',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(TESTKIT_CLI)}, --name, local, --resources, '7', --page-size, '3', --prompts, '2']`,
        `    env: { LOCAL_TOKEN: ${JSON.stringify(SECRET)} }`,
        '  remote:',
        `    url: ${remote.url}`,
        `    headers: { Authorization: ${JSON.stringify(SECRET)} }`,
        '  dead:',
        `    url: http://127.0.0.1:${deadPort}/mcp`,
        `    headers: { Authorization: ${JSON.stringify(SECRET)} }`,
        '    timeoutMs: 3000',
        '  slow:',
        `    url: ${slow.url}`,
        '    timeoutMs: 2000',
      ].join('\n'),
    );

    const { code, stdout, stderr } = await check(file);
    expect(code, stderr).toBe(1);
    expect(`${stdout}${stderr}`).not.toContain('s3cr3t');
    const table = rows(stdout);
    expect([...table.keys()]).toEqual(['local', 'remote', 'dead', 'slow']);

    const [, era, transport, protocol, ms, resources, templates, tools, prompts, status] =
      table.get('local')!;
    expect({ era, transport, resources, templates, prompts, status }).toEqual({
      era: 'legacy',
      transport: 'stdio',
      resources: '7',
      templates: '1',
      prompts: '2',
      status: 'ok',
    });
    expect(protocol).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Number(ms)).toBeGreaterThan(0);
    expect(tools).toMatch(/^(-|0)$/);

    const r = table.get('remote')!;
    expect(r.slice(1, 4)).toEqual(['modern', 'streamable-http', '2026-07-28']);
    expect(r.slice(5)).toEqual(['5', '3', '4', expect.stringMatching(/^(-|0)$/), 'ok']);

    const d = table.get('dead')!;
    expect(d.slice(1, 4)).toEqual(['-', 'streamable-http', '-']);
    expect(d[9]).toMatch(/^error: \S/);
    expect(table.get('slow')?.[9]).toBe('error: timed out after 2000 ms (listing resources/list)');
    expect(stdout).toMatch(/2 of 4 upstream\(s\) failed\./);
  });

  it('prints the table for stdio servers alone (nothing else holds the process open while they stop)', async () => {
    const file = join(await tempDir(cleanup), 'switchyard.json');
    const server = { command: process.execPath, args: [TESTKIT_CLI, '--name', 'only', '--resources', '2'] };
    await writeFile(file, JSON.stringify({ mcpServers: { only: server } }));
    const { code, stdout } = await check(file);
    expect(rows(stdout).get('only')).toEqual(expect.arrayContaining(['only', 'stdio', '2']));
    expect(stdout).toContain('All 1 upstream(s) OK.');
    expect(code).toBe(0);
  });

  it('refuses a bad config with exit 2 and the same message as at start', async () => {
    const dir = await tempDir(cleanup);
    const file = join(dir, 'switchyard.yml');
    await writeFile(file, 'mcpServers:\n  docs:\n    url: ftp://docs.example.com/mcp\n');
    const { code, stdout, stderr } = await check(file);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`Invalid config ${file}:`);
    expect(stderr).toMatch(/\$\.mcpServers\.docs\.url: unsupported URL scheme "ftp:".*\(line 3, column 10\)/);
  });

  it('refuses with exit 2 a plugin a start would refuse, before probing anything (found from outside: exit 0)', async () => {
    const dir = await tempDir(cleanup);
    const file = join(dir, 'switchyard.json');
    const server = { command: process.execPath, args: [TESTKIT_CLI, '--name', 'only'] };
    for (const [plugins, message] of [
      [
        [['./no-such-plugin.js', {}]],
        /PLUGIN_INVALID.*Cannot load plugin "\.\/no-such-plugin\.js" \(\$\.plugins\[0\]/,
      ],
      [[['@switchyard/plugin-access', { default: 'maybe' }]], /PLUGIN_INVALID_OPTIONS/],
      [
        [
          ['@switchyard/plugin-cache', {}],
          ['@switchyard/plugin-cache', {}],
        ],
        /PLUGIN_DUPLICATE/,
      ],
    ] as const) {
      await writeFile(file, JSON.stringify({ mcpServers: { only: server }, plugins }));
      const { code, stdout, stderr } = await check(file);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(message);
    }
  });

  it('prints what each virtual server exposes, and names an alwaysList tool it does not', async () => {
    const dir = await tempDir(cleanup);
    const file = join(dir, 'switchyard.json');
    const kit = (name: string, tools: string) => ({
      command: process.execPath,
      args: [TESTKIT_CLI, '--name', name, '--tools', tools, '--prompts', '1'],
    });
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: { gh: kit('gh', '4'), ci: kit('ci', '2') },
        virtualServers: {
          dev: { servers: ['gh'], tools: { deny: ['gh__tool_3'] } },
          ops: {
            servers: ['*'],
            prompts: { deny: ['*'] },
            toolSearch: { alwaysList: ['ci__tool_0', 'ci__tool_9'] },
          },
        },
      }),
    );
    const { code, stdout } = await check(file);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('VIRTUAL SERVER'));
    expect(lines[at]).toMatch(/^VIRTUAL SERVER\s+SERVERS\s+TOOLS\s+PROMPTS\s+TOOL SEARCH\s+NOTES$/);
    expect(lines[at + 1]?.split(/\s+/)).toEqual(['dev', 'gh', '3', '1', 'off']);
    expect(lines[at + 2]).toMatch(
      /^ops\s+gh,ci\s+6\s+0\s+on\s+alwaysList names no tool it exposes: ci__tool_9$/,
    );
  });

  it("warns of an alwaysList name given twice, and of upstream tools tool search's own shadow", async () => {
    // Found from outside: a repeated entry listed its tool twice; an unprefixed upstream's call_tool and
    // search_tools were said to be shadowed, and `check` said nothing of either.
    const dir = await tempDir(cleanup);
    const file = join(dir, 'switchyard.json');
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          gh: { command: process.execPath, args: [TESTKIT_CLI, '--name', 'gh', '--tools', '2'] },
          flat: {
            command: process.execPath,
            args: [TESTKIT_CLI, '--name', 'flat', '--tool-name', 'search_tools', '--tool-name', 'call_tool'],
            prefix: false,
          },
        },
        virtualServers: {
          dup: { servers: ['gh'], toolSearch: { alwaysList: ['gh__tool_1', 'gh__tool_0', 'gh__tool_1'] } },
          flat: { servers: ['*'], toolSearch: {} },
          nosearch: { servers: ['flat'] },
        },
      }),
    );
    const { code, stdout } = await check(file);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('VIRTUAL SERVER'));
    expect(lines[at + 1]).toMatch(/^dup\s+gh\s+2\s+0\s+on\s+alwaysList names a tool twice: gh__tool_1$/);
    expect(lines[at + 2]).toMatch(
      /^flat\s+gh,flat\s+4\s+0\s+on\s+tool search's own tools shadow the upstream tools named search_tools, call_tool: not found, not called$/,
    );
    expect(lines[at + 3]?.split(/\s+/)).toEqual(['nosearch', 'flat', '2', '0', 'off']);
  });
});
