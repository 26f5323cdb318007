import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawnProcess } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup, connectHttp, eventually } from './support/harness.js';
import { nodeEval, npmInstall, npxLocal, packAll, publishedPackages } from './support/packed.js';

// Issue 20: what the registry would serve. Every published package is packed with `pnpm pack` (from the
// dist/ the test command builds), the tarballs are installed with plain npm into an empty project, and
// the installed `switchyard` bin serves a stdio upstream (the testkit tarball's bin) with plugins named
// by package. Nothing of the monorepo is reachable from that project (it lives in the OS temp dir).

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

const PUBLISHED = publishedPackages();
let project = '';
let installMs = 0;

interface Installed {
  name: string;
  manifest: Record<string, unknown> & { exports: Record<string, { types: string }> };
  manifestText: string;
  subpaths: Record<string, { keys?: number; types?: boolean; error?: string }>;
  bins: Record<string, boolean>;
  license: boolean;
  readme: boolean;
  src: boolean;
}

/** Imports every exports subpath of every installed @switchyard/* and switchyard package, from the project. */
const INSPECT = `
import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
const names = [...readdirSync('node_modules/@switchyard').map((n) => '@switchyard/' + n), 'switchyard'];
const out = [];
for (const name of names) {
  const dir = join('node_modules', name);
  const manifestText = readFileSync(join(dir, 'package.json'), 'utf8');
  const manifest = JSON.parse(manifestText);
  const subpaths = {};
  for (const [sub, target] of Object.entries(manifest.exports)) {
    try {
      const mod = await import(sub === '.' ? name : name + sub.slice(1));
      subpaths[sub] = { keys: Object.keys(mod).length, types: existsSync(join(dir, target.types)) };
    } catch (error) {
      subpaths[sub] = { error: String(error) };
    }
  }
  const bins = {};
  for (const bin of Object.keys(manifest.bin ?? {})) {
    try { accessSync(join('node_modules/.bin', bin), constants.X_OK); bins[bin] = true; } catch { bins[bin] = false; }
  }
  out.push({ name, manifest, manifestText, subpaths, bins, license: existsSync(join(dir, 'LICENSE')),
    readme: existsSync(join(dir, 'README.md')), src: existsSync(join(dir, 'src')) });
}
process.stdout.write(JSON.stringify(out));
`;

describe('the published packages, packed and installed with npm', () => {
  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), 'switchyard-pack-'));
    cleanup.add(() => rm(root, { recursive: true, force: true }));
    const tarballs = await packAll(PUBLISHED, join(root, 'tarballs'), 60_000);
    expect(tarballs).toHaveLength(PUBLISHED.length);
    project = join(root, 'project');
    const started = performance.now();
    await npmInstall(project, tarballs, 240_000);
    installMs = performance.now() - started;
  }, 330_000);

  it('installs every package from its tarball: exports subpaths, types and bins resolve, no src/, no workspace: ranges', async () => {
    const installed = JSON.parse(await nodeEval(project, INSPECT)) as Installed[];
    expect(installed.map((p) => p.name).sort()).toEqual(PUBLISHED);
    for (const pkg of installed) {
      for (const [sub, outcome] of Object.entries(pkg.subpaths)) {
        expect(outcome, `${pkg.name} ${sub}`).toMatchObject({ types: true });
        expect(outcome.keys, `${pkg.name} ${sub} exports something`).toBeGreaterThan(0);
      }
      expect(Object.values(pkg.bins).every(Boolean), `${pkg.name} bins ${JSON.stringify(pkg.bins)}`).toBe(
        true,
      );
      expect(pkg.manifestText).not.toContain('workspace:');
      expect(pkg.manifest).toMatchObject({ license: 'MIT', engines: { node: '>=20' } });
      expect([pkg.license, pkg.readme, pkg.src], `${pkg.name}: LICENSE, README.md, no src/`).toEqual([
        true,
        true,
        false,
      ]);
    }
    const byName = new Map(installed.map((p) => [p.name, p]));
    expect(Object.keys(byName.get('@switchyard/plugin-pin')!.subpaths)).toContain('./lock');
    expect(Object.keys(byName.get('switchyard')!.manifest.bin as object)).toEqual(['switchyard']);
    // The gateway runs without the testkit (only its embedded demo config uses it, when installed).
    expect(Object.keys(byName.get('switchyard')!.manifest.dependencies as object)).not.toContain(
      '@switchyard/testkit',
    );

    // npm resolved the packages' dependencies on each other to the tarballs, each installed once.
    const lock = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>;
    };
    const paths = Object.keys(lock.packages);
    const ours = paths.filter((path) => /(^|\/)node_modules\/(@switchyard\/[^/]+|switchyard)$/.test(path));
    expect(ours.sort()).toEqual(PUBLISHED.map((name) => `node_modules/${name}`));
    for (const path of ours) expect(lock.packages[path]!.resolved, path).toMatch(/^file:.*\.tgz$/);
    // One @opentelemetry/api: the OpenTelemetry SDK the gateway registers and the API core and the gateway
    // trace with must be the same copy, or every span is silently dropped.
    expect(paths.filter((path) => path.endsWith('node_modules/@opentelemetry/api'))).toEqual([
      'node_modules/@opentelemetry/api',
    ]);
  });

  it('npx switchyard finds the installed bin', async () => {
    const { stderr } = await npxLocal(project, ['switchyard', '--help']);
    expect(stderr).toContain('one MCP endpoint in front of many upstream MCP servers');
  });

  it('reports the versions it was published as (plugins check their core range against CORE_VERSION)', async () => {
    const versions = JSON.parse(
      await nodeEval(
        project,
        `import { readFileSync } from 'node:fs';
const version = (name) => JSON.parse(readFileSync('node_modules/' + name + '/package.json', 'utf8')).version;
const { CORE_VERSION } = await import('@switchyard/core');
process.stdout.write(JSON.stringify({ core: version('@switchyard/core'), CORE_VERSION, switchyard: version('switchyard') }));`,
      ),
    ) as { core: string; CORE_VERSION: string; switchyard: string };
    expect(versions.CORE_VERSION).toBe(versions.core);
    const { stderr } = await npxLocal(project, ['switchyard', '--version']);
    expect(stderr).toMatch(new RegExp(`^switchyard ${versions.switchyard.replaceAll('.', '\\.')}$`, 'm'));
  });

  it('serves: a stdio upstream, plugins named by package, an SDK client over HTTP', async () => {
    const audit = join(project, 'audit.jsonl');
    const config = join(project, 'switchyard.json');
    await writeFile(
      config,
      JSON.stringify({
        listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
        mcpServers: {
          docs: {
            command: join(project, 'node_modules/.bin/switchyard-testkit'),
            args: ['--name', 'docs', '--resources', '3', '--tools', '2', '--prompts', '1'],
          },
        },
        plugins: [
          ['@switchyard/plugin-audit', { file: './audit.jsonl' }],
          ['@switchyard/plugin-cache', {}],
        ],
      }),
    );
    const started = performance.now();
    const gateway = spawnProcess({
      name: 'installed switchyard',
      command: join(project, 'node_modules/.bin/switchyard'),
      args: ['--config', config],
      cwd: project,
    });
    cleanup.add(() => gateway.stop());
    const [, url] = await gateway.waitForLine(/listening on (http:\/\/\S+)/, { timeoutMs: 20_000 });
    const startMs = performance.now() - started;
    console.info(
      `pack-install: npm install ${(installMs / 1000).toFixed(1)} s, start to listening ${(startMs / 1000).toFixed(1)} s`,
    );

    const client = await connectHttp(cleanup, url!);
    expect(client.getServerCapabilities()).toMatchObject({ resources: {}, tools: {}, prompts: {} });

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['docs__tool_0', 'docs__tool_1']);
    const call = await client.callTool({ name: 'docs__tool_0', arguments: { text: 'from the tarball' } });
    expect(JSON.stringify(call.content)).toContain('from the tarball');

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['docs__prompt_0']);

    const { resources } = await client.listResources();
    expect(resources).toHaveLength(3);
    const uri = resources[0]!.uri;
    expect(uri.startsWith('docs+')).toBe(true);
    const first = await client.readResource({ uri });
    const second = await client.readResource({ uri });
    expect(second.contents).toEqual(first.contents);

    // The audit plugin (outermost) saw every request, and the cache plugin inside it answered the second read.
    const lines = await eventually(async () => {
      const text = await readFile(audit, 'utf8').catch(() => '');
      const records = text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { method: string; cache?: string; outcome: string });
      return records.filter((r) => r.method === 'resources/read').length >= 2 && records;
    }, 'two resources/read lines in the audit file');
    expect(lines.map((r) => r.method)).toEqual(
      expect.arrayContaining([
        'tools/list',
        'tools/call',
        'prompts/list',
        'resources/list',
        'resources/read',
      ]),
    );
    expect(lines.every((r) => r.outcome === 'ok')).toBe(true);
    expect(lines.filter((r) => r.method === 'resources/read').map((r) => r.cache)).toEqual(['miss', 'hit']);
  });
});
