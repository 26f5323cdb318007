import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CACHE_STATUS_KEY,
  definePlugin,
  Gateway,
  GatewayError,
  type Identity,
  PluginError,
  type PluginSetupContext,
  setupPlugins,
  silentLogger,
} from '@switchyard/core';
import { connectInMemoryClient } from '@switchyard/core/testing';
import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import audit, { type AuditOptions, type AuditRecord } from '../src/index.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const task of cleanup.splice(0).reverse()) {
    try {
      await task();
    } catch {
      // keep cleaning up
    }
  }
});

const ALICE: Identity = { id: 'alice', groups: ['platform'], anonymous: false };

/** An inner policy plugin: denies "secret" URIs, rate-limits "limited" ones, and plays a cache for r/1. */
const policy = definePlugin({
  name: 'test-policy',
  setup: () => ({
    request: async (ctx, next) => {
      const uri = typeof ctx.params.uri === 'string' ? ctx.params.uri : '';
      if (uri.includes('secret')) return { ok: false, error: GatewayError.forbidden(`${uri} is off limits`) };
      if (uri.includes('limited')) return { ok: false, error: GatewayError.rateLimited(1500) };
      if (uri.endsWith('/r/1')) ctx.state.set(CACHE_STATUS_KEY, 'hit');
      return next();
    },
  }),
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-audit-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Audit (outermost) + the test policy in front of a real testkit upstream over HTTP, and an SDK client. */
async function auditedGateway(options: Partial<AuditOptions> = {}, upstreamOptions = {}) {
  const dir = tempDir();
  const upstream = new TestServer({ name: 'docs', resources: 3, ...upstreamOptions });
  const { url } = await upstream.listenHttp();
  cleanup.push(() => upstream.close());
  const plugins = await setupPlugins(
    [
      { plugin: audit, options: { file: './audit.jsonl', ...options }, source: '@switchyard/plugin-audit' },
      { plugin: policy, options: {}, source: './test-policy.js' },
    ],
    silentLogger,
    { baseDir: dir },
  );
  const gateway = new Gateway({
    upstreams: [
      { name: 'docs', prefix: true, timeoutMs: 5_000, transport: { kind: 'http', url, headers: {} } },
    ],
    plugins,
    logger: silentLogger,
  });
  cleanup.push(() => gateway.close());
  await gateway.start();
  const { client, close } = await connectInMemoryClient(gateway, {
    sessionId: 'session-1',
    identity: ALICE,
    name: 'audit-test',
  });
  cleanup.push(close);
  const file = join(dir, 'audit.jsonl');
  const records = (): AuditRecord[] =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter((l) => l.length > 0)
          .map((l) => JSON.parse(l) as AuditRecord)
      : [];
  // Any result shape (unknown methods need an explicit schema with the v2 client).
  const anyResult = {
    '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) },
  };
  const request = (method: string, params: Record<string, unknown>) =>
    client.request({ method, params } as never, anyResult as never);
  return { gateway, client, upstream, file, records, request };
}

/** Runs one request and returns the one record it added (fails if it added none or several). */
async function recordOf(
  gw: Awaited<ReturnType<typeof auditedGateway>>,
  method: string,
  params: Record<string, unknown>,
): Promise<AuditRecord> {
  const before = gw.records().length;
  await gw.request(method, params).catch(() => undefined);
  const after = gw.records();
  expect(after).toHaveLength(before + 1); // written before the response reached the client
  return after[after.length - 1]!;
}

describe('audit plugin in the gateway', () => {
  it('records a successful read with the design fields', async () => {
    const gw = await auditedGateway();
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
      'outcome',
      'durationMs',
      'bytes',
    ]);
  });

  it('records a list without uri or upstream', async () => {
    const gw = await auditedGateway();
    const record = await recordOf(gw, 'resources/list', {});
    expect(record).toMatchObject({ method: 'resources/list', outcome: 'ok', identity: 'alice' });
    expect(record).not.toHaveProperty('uri');
    expect(record).not.toHaveProperty('upstream');
    expect(record.bytes).toBeGreaterThan(0);
  });

  it('records errors: an unknown resource, a denial and a rate limit from an inner plugin', async () => {
    const gw = await auditedGateway();
    const unknown = await recordOf(gw, 'resources/read', { uri: 'nowhere://x' });
    expect(unknown).toMatchObject({
      uri: 'nowhere://x',
      outcome: 'error',
      errorCode: -32602,
      reason: 'resource_not_found',
    });
    expect(unknown).not.toHaveProperty('upstream');
    expect(unknown.bytes).toBeGreaterThan(0);
    const denied = await recordOf(gw, 'resources/read', { uri: 'docs+test://docs/secret' });
    expect(denied).toMatchObject({
      uri: 'docs+test://docs/secret',
      upstream: 'docs',
      outcome: 'error',
      errorCode: -32034,
      reason: 'forbidden',
    });
    const limited = await recordOf(gw, 'resources/read', { uri: 'docs+test://docs/limited' });
    expect(limited).toMatchObject({ outcome: 'error', errorCode: -32033, reason: 'rate_limited' });
    expect(gw.upstream.stats.requests['resources/read'] ?? 0).toBe(0); // none of them went upstream
    const unknownMethod = await recordOf(gw, 'tasks/list', {});
    expect(unknownMethod).toMatchObject({ method: 'tasks/list', outcome: 'error', errorCode: -32601 });
  });

  it('records the cache status an inner plugin sets', async () => {
    const gw = await auditedGateway();
    expect(await recordOf(gw, 'resources/read', { uri: 'docs+test://docs/r/1' })).toMatchObject({
      cache: 'hit',
    });
    expect(await recordOf(gw, 'resources/read', { uri: 'docs+test://docs/r/2' })).not.toHaveProperty('cache');
  });

  it('fsync "always": records completions with their argument, redacted as configured', async () => {
    const gw = await auditedGateway({ fsync: 'always', redact: ['params.argument.value', 'session'] });
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
    const gw = await auditedGateway();
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
      { baseDir: tempDir() },
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
    const dir = tempDir();
    const hooks = await audit.setup(
      { file: join(dir, 'audit.jsonl') },
      {
        logger: silentLogger,
        loaded: [],
        baseDir: dir,
        gateway: { route: () => undefined } as unknown as PluginSetupContext['gateway'],
        tracer: {} as PluginSetupContext['tracer'],
        meter,
      },
    );
    cleanup.push(() => hooks.close?.());
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
