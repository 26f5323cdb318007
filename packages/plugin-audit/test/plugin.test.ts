import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  MemoryStore,
  PluginError,
  type PluginSetupContext,
  setupPlugins,
  silentLogger,
} from '@switchyard/core';
import { Cleanup } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import audit from '../src/index.js';
import { auditOptions } from '../src/options.js';
import { ALICE, auditedGateway, recordOf, tempDir } from './support.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('audit plugin in the gateway', () => {
  it('records a successful read with the design fields', async () => {
    const gw = await auditedGateway(cleanup);
    const started = Date.now();
    const record = await recordOf(gw, 'resources/read', { uri: 'docs+test://docs/r/0' });
    expect(record).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      identity: 'alice',
      groups: ['platform'],
      session: 'session-1',
      transport: 'memory',
      method: 'resources/read',
      uri: 'docs+test://docs/r/0',
      upstream: 'docs',
      upstreamUri: 'test://docs/r/0',
      outcome: 'ok',
      durationMs: expect.any(Number),
      bytes: expect.any(Number),
    });
    expect(Date.parse(record.time)).toBeGreaterThanOrEqual(started - 1000);
    expect(record.bytes).toBeGreaterThan('resource 0'.length);
    expect(Object.keys(record)).toEqual([
      'time',
      'identity',
      'groups',
      'session',
      'transport',
      'method',
      'uri',
      'upstream',
      'upstreamUri',
      'outcome',
      'durationMs',
      'bytes',
    ]);
  });

  it('records a list without uri or upstream', async () => {
    const gw = await auditedGateway(cleanup);
    const record = await recordOf(gw, 'resources/list', {});
    expect(record).toMatchObject({ method: 'resources/list', outcome: 'ok', identity: 'alice' });
    expect(record).not.toHaveProperty('uri');
    expect(record).not.toHaveProperty('upstream');
    expect(record.bytes).toBeGreaterThan(0);
  });

  it('records errors: an unknown resource, a denial and a rate limit from an inner plugin', async () => {
    const gw = await auditedGateway(cleanup);
    // The in-memory client speaks the legacy era: it receives -32002 (its SDK shows it as -32602).
    const unknown = await recordOf(gw, 'resources/read', { uri: 'nowhere://x' });
    expect(unknown).toMatchObject({
      uri: 'nowhere://x',
      outcome: 'error',
      errorCode: -32002,
      reason: 'resource_not_found',
    });
    expect(unknown).not.toHaveProperty('upstream');
    expect(unknown.bytes).toBeGreaterThan(0);
    const denied = await recordOf(gw, 'resources/read', { uri: 'docs+test://docs/secret' });
    expect(denied).toMatchObject({
      uri: 'docs+test://docs/secret',
      upstream: 'docs',
      outcome: 'error',
      errorCode: -32007,
      reason: 'forbidden',
    });
    const limited = await recordOf(gw, 'resources/read', { uri: 'docs+test://docs/limited' });
    expect(limited).toMatchObject({ outcome: 'error', errorCode: -32006, reason: 'rate_limited' });
    expect(gw.upstream.stats.requests['resources/read'] ?? 0).toBe(0); // none of them went upstream
    const unknownMethod = await recordOf(gw, 'tasks/list', {});
    expect(unknownMethod).toMatchObject({ method: 'tasks/list', outcome: 'error', errorCode: -32601 });
  });

  it("records the code of the caller's era for an unknown resource, as the client receives it", async () => {
    const gw = await auditedGateway(cleanup);
    const read = async (era: 'legacy' | 'modern') => {
      const outcome = await gw.gateway.handle({
        method: 'resources/read',
        params: { uri: 'docs+test://docs/missing' },
        session: { id: `s-${era}`, transport: 'memory', identity: ALICE, notify: async () => {} },
        identity: ALICE,
        signal: new AbortController().signal,
        notifyRelated: async () => {},
        state: new Map(),
        client: { era, capabilities: {} },
      });
      return outcome.ok ? undefined : outcome.error.code;
    };
    expect(await read('legacy')).toBe(-32002);
    expect(await read('modern')).toBe(-32602);
    const records = gw.records();
    expect(records.map((r) => [r.session, r.errorCode, r.reason])).toEqual([
      ['s-legacy', -32002, 'resource_not_found'],
      ['s-modern', -32602, 'resource_not_found'],
    ]);
  });

  it('records the cache status an inner plugin sets', async () => {
    const gw = await auditedGateway(cleanup);
    expect(await recordOf(gw, 'resources/read', { uri: 'docs+test://docs/r/1' })).toMatchObject({
      cache: 'hit',
    });
    expect(await recordOf(gw, 'resources/read', { uri: 'docs+test://docs/r/2' })).not.toHaveProperty('cache');
  });

  it('fsync "always": records completions with their argument, redacted as configured', async () => {
    const gw = await auditedGateway(cleanup, {
      fsync: 'always',
      redact: ['params.argument.value', 'session'],
    });
    const record = await recordOf(gw, 'completion/complete', {
      ref: { type: 'ref/resource', uri: 'docs+test://docs/items/{id}' },
      argument: { name: 'id', value: 'al' },
    });
    expect(record).toMatchObject({
      method: 'completion/complete',
      uri: 'docs+test://docs/items/{id}',
      upstream: 'docs',
      params: { argument: { name: 'id', value: '[REDACTED]' } },
      session: '[REDACTED]',
      outcome: 'ok',
    });
    expect(readFileSync(gw.file, 'utf8')).not.toContain('session-1');
  });

  it('records a request that is still in flight when the gateway closes', async () => {
    const gw = await auditedGateway(cleanup);
    gw.upstream.failNext({ method: 'resources/read', mode: 'hang' });
    const pending = gw.request('resources/read', { uri: 'docs+test://docs/r/0' }).catch((e: unknown) => e);
    for (let i = 0; i < 500 && !gw.upstream.stats.requests['resources/read']; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(gw.upstream.stats.requests['resources/read']).toBe(1);
    await gw.gateway.close(); // closes the audit file first, then the upstreams (failing the read)
    await pending;
    const records = gw.records();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ uri: 'docs+test://docs/r/0', outcome: 'error' });
  });

  it('refuses to start when the file cannot be opened', async () => {
    const error = await setupPlugins(
      [
        {
          plugin: audit,
          options: { file: './no/such/folder/audit.jsonl' },
          source: '@switchyard/plugin-audit',
        },
      ],
      silentLogger,
      { baseDir: tempDir(cleanup) },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginError);
    expect((error as PluginError).code).toBe('PLUGIN_SETUP_FAILED');
    expect((error as PluginError).message).toMatch(
      /@switchyard\/plugin-audit failed to set up: cannot open the audit file .*no\/such\/folder\/audit\.jsonl/,
    );
  });
});

describe('audit plugin metrics', () => {
  it('counts records and write errors', async () => {
    const counts = new Map<string, number>();
    const meter = {
      createCounter: (name: string) => ({
        add: (n: number) => counts.set(name, (counts.get(name) ?? 0) + n),
      }),
    } as unknown as PluginSetupContext['meter'];
    const dir = tempDir(cleanup);
    const hooks = await audit.setup(auditOptions.parse({ file: join(dir, 'audit.jsonl') }), {
      logger: silentLogger,
      loaded: [],
      baseDir: dir,
      gateway: { route: () => undefined } as unknown as PluginSetupContext['gateway'],
      tracer: {} as PluginSetupContext['tracer'],
      meter,
      store: new MemoryStore(),
      events: { emit: async () => {} },
    });
    cleanup.add(() => hooks.close?.());
    const ctx = {
      method: 'resources/list',
      params: {},
      session: { id: 's', transport: 'memory' as const, identity: ALICE, notify: async () => {} },
      identity: ALICE,
      signal: new AbortController().signal,
      notifyRelated: async () => {},
      state: new Map<string, unknown>(),
    };
    await hooks.request?.(ctx, async () => ({ ok: true, result: { resources: [] } }));
    // a result that cannot be serialized still gets its record (without bytes)
    const outcome = await hooks.request?.(ctx, async () => ({ ok: true, result: { n: 1n } }));
    expect(outcome?.ok).toBe(true);
    expect(counts.get('switchyard.audit.records')).toBe(2);
    expect(counts.get('switchyard.audit.write_errors') ?? 0).toBe(0);
    const lines = readFileSync(join(dir, 'audit.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines[1]!)).not.toHaveProperty('bytes');
  });
});
