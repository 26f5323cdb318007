import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { validateOptions } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../src/config/load.js';
import { Cleanup, httpUpstream, spawnGateway, tempDir } from './support/harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** Runs the built CLI to completion in `cwd`, HOME pointing at `home` (so no real client file is read). */
async function cli(args: string[], cwd: string, home = join(cwd, 'home')) {
  const proc = spawnGateway(cleanup, args, {
    cwd,
    env: { HOME: home, USERPROFILE: home, APPDATA: undefined },
  });
  const code = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

describe('switchyard import (built CLI)', () => {
  it('imports a Cursor file, points it at Switchyard, and `switchyard check` accepts the config', async () => {
    const remote = await httpUpstream(cleanup, { name: 'remote', resources: 3 });
    const dir = await tempDir(cleanup);
    const client = join(dir, '.cursor', 'mcp.json');
    await mkdir(dirname(client));
    const original = [
      '// my servers',
      '{',
      '  "mcpServers": {',
      `    "Team Docs": { "url": "${remote.url}", "headers": { "Authorization": "Bearer \${env:DOCS_TOKEN}" } },`,
      '  },',
      '  "other": true,',
      '}',
      '',
    ].join('\n');
    await writeFile(client, original);

    const imported = await cli(['import', client, '--out', 'gateway.json', '--write-back'], dir);
    expect(imported.code, imported.stderr).toBe(0);
    const out = join(dir, 'gateway.json');
    expect(imported.stdout).toBe(
      `imported 1 server from 1 file into ${out}; 1 client file now starts Switchyard\n`,
    );
    expect(imported.stderr).toContain('-    "Team Docs": {');
    expect(imported.stderr).toContain('  DOCS_TOKEN  (environment)');
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual({
      listen: { stdio: true },
      mcpServers: { 'team-docs': { url: remote.url, headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } } },
    });
    const rewritten = await readFile(client, 'utf8');
    expect(rewritten).toContain('// my servers');
    expect(rewritten).toContain('"other": true');
    expect(rewritten).toContain(`"switchyard": {\n      "command": "npx",`);
    const backups = (await readdir(join(dir, '.cursor'))).filter((f) =>
      f.startsWith('mcp.json.switchyard-backup-'),
    );
    expect(backups).toHaveLength(1);
    expect(await readFile(join(dir, '.cursor', backups[0]!), 'utf8')).toBe(original);

    const checked = spawnGateway(cleanup, ['check', '--config', out], {
      env: { DOCS_TOKEN: 'secret-value' },
    });
    expect(await checked.exited, checked.stderr()).toBe(0);
    expect(checked.stdout()).toMatch(/^team-docs\s+\S+\s+streamable-http\s/m);

    const again = await cli(['import', client, '--out', 'gateway.json', '--write-back'], dir);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('nothing to import');
    expect(await readFile(client, 'utf8')).toBe(rewritten);
    expect((await readdir(join(dir, '.cursor'))).filter((f) => f.includes('switchyard-backup'))).toHaveLength(
      1,
    );
  });

  it('refuses a malformed file with its line and column and writes nothing', async () => {
    const dir = await tempDir(cleanup);
    const client = join(dir, 'mcp.json');
    await writeFile(client, '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}\n');
    const result = await cli(['import', client, '--write-back'], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `switchyard import: ${client}:4:5: not valid JSON (CommaExpected)\nNothing was written.\n`,
    );
    expect(await readdir(dir)).toEqual(['mcp.json']);
  });

  it('reads the default locations under HOME when no file is named', async () => {
    const dir = await tempDir(cleanup);
    const home = join(dir, 'home');
    await mkdir(join(home, '.cursor'), { recursive: true });
    await writeFile(join(home, '.cursor', 'mcp.json'), '{ "mcpServers": { "x": { "command": "x" } } }');
    const result = await cli(['import'], dir, home);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'switchyard.json'), 'utf8')).mcpServers).toEqual({
      x: { command: 'x' },
    });
  });

  it('rejects flags that belong to other commands', async () => {
    const dir = await tempDir(cleanup);
    const result = await cli(['init', '--write-back'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--write-back goes with the import command');
    const pinOut = await cli(['check', '--out', 'x.json'], dir);
    expect(pinOut.code).toBe(2);
    expect(pinOut.stderr).toContain('--out goes with the import and init commands');
  });
});

describe('switchyard init (built CLI)', () => {
  it('writes a commented starter config the loader accepts, and never over an existing file', async () => {
    const dir = await tempDir(cleanup);
    const first = await cli(['init'], dir);
    expect(first.code, first.stderr).toBe(0);
    const file = join(dir, 'switchyard.yaml');
    expect(first.stdout).toContain(`wrote ${file}`);
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/^# Switchyard/);
    expect(text).toContain('# - ["@switchyard/plugin-rate-limit"');

    const config = await loadConfigFile(file, {});
    expect(config.listen.http).toMatchObject({ host: '127.0.0.1', port: 7480, path: '/mcp' });
    expect(config.listen.admin).toMatchObject({ host: '127.0.0.1', port: 7482 });
    expect(config.listen.stdio).toBe(false);
    expect(config.upstreams).toEqual([
      expect.objectContaining({
        name: 'everything',
        transport: expect.objectContaining({
          kind: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-everything'],
        }),
      }),
    ]);
    expect(config.plugins.map((p) => p.specifier)).toEqual([
      '@switchyard/plugin-audit',
      '@switchyard/plugin-cache',
    ]);
    // Each plugin's own options schema accepts its options (what a start would check next).
    for (const [i, { specifier, options }] of config.plugins.entries()) {
      const plugin = ((await import(specifier)) as { default: { name: string; options?: unknown } }).default;
      expect(plugin.options).toBeDefined();
      validateOptions(plugin.name, plugin.options as never, options, `$.plugins[${i}]`);
    }

    await writeFile(file, 'mine\n');
    const second = await cli(['init'], dir);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`${file} exists; it was left as it is`);
    expect(await readFile(file, 'utf8')).toBe('mine\n');

    const other = await cli(['init', '--out', 'other.yaml'], dir);
    expect(other.code, other.stderr).toBe(0);
    expect(await readFile(join(dir, 'other.yaml'), 'utf8')).toBe(text);
  });
});
