import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CACHE_STATUS_KEY,
  definePlugin,
  Gateway,
  GatewayError,
  type Identity,
  setupPlugins,
  silentLogger,
} from '@switchyard/core';
import { connectInMemoryClient } from '@switchyard/core/testing';
import { type Cleanup, TestServer, type TestServerOptions } from '@switchyard/testkit';
import { expect } from 'vitest';
import audit, { type AuditOptions, type AuditRecord } from '../src/index.js';

// The audit plugin (outermost) and a small policy plugin inside it, in front of a real testkit upstream
// over HTTP, with an official SDK client on an in-memory session.

export const ALICE: Identity = { id: 'alice', groups: ['platform'], anonymous: false };

/**
 * An inner policy plugin: denies "secret" URIs and tool or prompt names, rate-limits "limited" URIs,
 * and plays a cache for r/1.
 */
const policy = definePlugin({
  name: 'test-policy',
  setup: () => ({
    request: async (ctx, next) => {
      const uri = typeof ctx.params.uri === 'string' ? ctx.params.uri : '';
      const name = typeof ctx.params.name === 'string' ? ctx.params.name : '';
      if (uri.includes('secret') || name.includes('secret')) {
        return { ok: false, error: GatewayError.forbidden(`${uri || name} is off limits`) };
      }
      if (uri.includes('limited')) return { ok: false, error: GatewayError.rateLimited(1500) };
      if (uri.endsWith('/r/1')) ctx.state.set(CACHE_STATUS_KEY, 'hit');
      return next();
    },
  }),
});

export function tempDir(cleanup: Cleanup): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-audit-'));
  cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Audit (outermost) + the test policy in front of a real testkit upstream over HTTP, and an SDK client. */
export async function auditedGateway(
  cleanup: Cleanup,
  options: Partial<AuditOptions> = {},
  upstreamOptions: TestServerOptions = {},
  prefix = true,
) {
  const dir = tempDir(cleanup);
  const upstream = new TestServer({ name: 'docs', resources: 3, ...upstreamOptions });
  const { url } = await upstream.listenHttp();
  cleanup.add(() => upstream.close());
  const plugins = await setupPlugins(
    [
      { plugin: audit, options: { file: './audit.jsonl', ...options }, source: '@switchyard/plugin-audit' },
      { plugin: policy, options: {}, source: './test-policy.js' },
    ],
    silentLogger,
    { baseDir: dir },
  );
  const gateway = new Gateway({
    upstreams: [{ name: 'docs', prefix, timeoutMs: 5_000, transport: { kind: 'http', url, headers: {} } }],
    plugins,
    logger: silentLogger,
  });
  cleanup.add(() => gateway.close());
  await gateway.start();
  const { client, close } = await connectInMemoryClient(gateway, {
    sessionId: 'session-1',
    identity: ALICE,
    name: 'audit-test',
  });
  cleanup.add(close);
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
export async function recordOf(
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
