import { describe, expect, it, vi } from 'vitest';
import { ErrorCode, GatewayError, type GatewayErrorData, isResourceNotFound } from '../src/errors.js';
import { mapUpstreamError } from '../src/upstream/errors.js';

/** An Error carrying a JSON-RPC code, like the SDK's ProtocolError. */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

describe('GatewayError', () => {
  it('is an Error carrying its code, data and reason', () => {
    const error = new GatewayError(-32000, 'boom', { reason: 'upstream_error', upstream: 'docs' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('GatewayError');
    expect(error.message).toBe('boom');
    expect(error.code).toBe(-32000);
    expect(error.reason).toBe('upstream_error');
    expect(error.toJSON()).toEqual({
      code: -32000,
      message: 'boom',
      data: { reason: 'upstream_error', upstream: 'docs' },
    });
  });

  it('omits data from toJSON when there is none', () => {
    const error = new GatewayError(-32603, 'plain');
    expect(error.reason).toBeUndefined();
    expect(error.toJSON()).toEqual({ code: -32603, message: 'plain' });
    expect('data' in error.toJSON()).toBe(false);
  });

  it('builds the documented factory errors', () => {
    const cursor = GatewayError.invalidCursor();
    expect(cursor.code).toBe(ErrorCode.InvalidParams);
    expect(cursor.code).toBe(-32602);
    expect(cursor.reason).toBe('invalid_cursor');

    const notFound = GatewayError.resourceNotFound('docs+file:///a', 'Upstream says no.');
    expect(notFound.code).toBe(-32602);
    expect(notFound.data).toEqual({ reason: 'resource_not_found', uri: 'docs+file:///a' });
    expect(notFound.message).toContain('docs+file:///a');
    expect(notFound.message).toContain('Upstream says no.');

    const cause = new Error('ECONNREFUSED');
    const unavailable = GatewayError.upstreamUnavailable('docs', 'connection refused', cause);
    expect(unavailable.code).toBe(ErrorCode.UpstreamUnavailable);
    expect(unavailable.data).toEqual({ reason: 'upstream_unavailable', upstream: 'docs' });
    expect(unavailable.message).toContain("'docs'");
    expect(unavailable.message).toContain('connection refused');
    expect(unavailable.cause).toBe(cause);

    const timeout = GatewayError.upstreamTimeout('docs', 'resources/read', 1500);
    expect(timeout.code).toBe(ErrorCode.UpstreamTimeout);
    expect(timeout.data).toEqual({ reason: 'upstream_timeout', upstream: 'docs', timeoutMs: 1500 });
    expect(timeout.message).toContain('resources/read');
    expect(timeout.message).toContain('1500 ms');

    const cancelled = GatewayError.cancelled('resources/list');
    expect(cancelled.code).toBe(ErrorCode.InternalError);
    expect(cancelled.reason).toBe('cancelled');

    const invalid = GatewayError.invalidParams('bad', { uri: 'x' });
    expect(invalid.code).toBe(-32602);
    expect(invalid.data).toEqual({ uri: 'x' });
  });
});

describe('GatewayError.fromUnknown', () => {
  it('returns a GatewayError unchanged', () => {
    const original = GatewayError.invalidCursor();
    expect(GatewayError.fromUnknown(original, 'docs')).toBe(original);
    expect(original.data?.upstream).toBeUndefined();
  });

  it('keeps the code, message and data of a JSON-RPC error and adds the upstream', () => {
    const data = { uri: 'file:///a', extra: 1 };
    const source = new RpcError(-32002, 'Resource not found', data);
    const error = GatewayError.fromUnknown(source, 'docs');
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.code).toBe(-32002);
    expect(error.message).toBe('Resource not found');
    expect(error.data).toEqual({ uri: 'file:///a', extra: 1, upstream: 'docs' });
    expect(error.cause).toBe(source);
    // The upstream's own data object is copied, not mutated.
    expect(data).toEqual({ uri: 'file:///a', extra: 1 });
  });

  it('does not overwrite an upstream already named in the data', () => {
    const error = GatewayError.fromUnknown(new RpcError(-32000, 'x', { upstream: 'inner' }), 'outer');
    expect(error.data?.upstream).toBe('inner');
  });

  it('wraps non-object data as detail and tolerates missing data', () => {
    expect(GatewayError.fromUnknown(new RpcError(-32000, 'x', 'text'), 'docs').data).toEqual({
      detail: 'text',
      upstream: 'docs',
    });
    expect(GatewayError.fromUnknown(new RpcError(-32000, 'x', [1, 2])).data).toEqual({ detail: [1, 2] });
    expect(GatewayError.fromUnknown(new RpcError(-32000, 'x')).data).toEqual({});
  });

  it('turns anything else into an internal error keeping the cause', () => {
    const boom = new Error('boom');
    const fromError = GatewayError.fromUnknown(boom);
    expect(fromError.code).toBe(-32603);
    expect(fromError.reason).toBe('internal');
    expect(fromError.message).toBe('Internal gateway error: boom');
    expect(fromError.cause).toBe(boom);

    expect(GatewayError.fromUnknown('just a string').message).toBe('Internal gateway error: just a string');
    // A plain object that merely looks like a JSON-RPC error is not trusted for its code.
    const lookalike = GatewayError.fromUnknown({ code: -32002, message: 'nope' });
    expect(lookalike.code).toBe(-32603);
    expect(lookalike.reason).toBe('internal');
    // A non-integer code is not a JSON-RPC code.
    const fractional = new RpcError(1.5, 'odd');
    expect(GatewayError.fromUnknown(fractional).code).toBe(-32603);
  });
});

describe('isResourceNotFound', () => {
  it('recognises both eras and the gateway reason', () => {
    expect(isResourceNotFound(GatewayError.resourceNotFound('x'))).toBe(true);
    expect(isResourceNotFound(new GatewayError(-32002, 'legacy'))).toBe(true);
    expect(isResourceNotFound(new GatewayError(-32602, 'modern', { uri: 'file:///a' }))).toBe(true);
    // SDK v2 servers (server-everything) in both eras: found from outside, a 2025 client got -32602.
    const sdk = 'MCP error -32602: Resource demo://resource/static/document/nope.md not found';
    expect(isResourceNotFound(new GatewayError(-32602, sdk))).toBe(true);
  });

  it('rejects other errors', () => {
    expect(isResourceNotFound(new GatewayError(-32602, 'bad params'))).toBe(false);
    expect(isResourceNotFound(new GatewayError(-32602, 'Tool x not found'))).toBe(false);
    expect(isResourceNotFound(new GatewayError(-32603, 'Resource x not found'))).toBe(false);
    // Upstream data is untyped at runtime: a non-string uri does not count.
    const numericUri = { uri: 42 } as unknown as GatewayErrorData;
    expect(isResourceNotFound(new GatewayError(-32602, 'bad params', numericUri))).toBe(false);
    expect(isResourceNotFound(new GatewayError(-32603, 'internal', { uri: 'file:///a' }))).toBe(false);
    expect(isResourceNotFound(GatewayError.invalidCursor())).toBe(false);
    expect(isResourceNotFound(GatewayError.upstreamUnavailable('docs'))).toBe(false);
  });
});

describe('ErrorCode', () => {
  // MCP 2026-07-28 reserves -32020..-32099 for the specification; -32002 and -32042 keep the meanings
  // 2025-11-25 gave them; the SDKs use -32001 themselves. Each is sent only with the spec's meaning.
  const SPEC_MEANING = new Map<number, keyof typeof ErrorCode>([
    [-32002, 'ResourceNotFoundLegacy'],
    [-32020, 'HeaderMismatch'],
    [-32021, 'MissingRequiredClientCapability'],
    [-32042, 'UrlElicitationRequired'],
  ]);

  it("gives the gateway's own failures numbers the MCP specification leaves to implementations", () => {
    for (const [name, code] of Object.entries(ErrorCode)) {
      if (code <= -32600) continue; // JSON-RPC's own
      const specName = SPEC_MEANING.get(code);
      if (specName) {
        expect(name, `${code} carries the spec's meaning`).toBe(specName);
        continue;
      }
      expect(code, `${name} in -32000..-32019`).toBeGreaterThanOrEqual(-32019);
      expect(code, `${name} in -32000..-32019`).toBeLessThanOrEqual(-32000);
      expect([-32001, -32002], `${name} avoids the SDKs' and 2025's numbers`).not.toContain(code);
    }
  });

  it('never gives two failures one number (StoreUnavailable is one of the gateway refusals)', () => {
    const byCode = new Map<number, string[]>();
    for (const [name, code] of Object.entries(ErrorCode))
      byCode.set(code, [...(byCode.get(code) ?? []), name]);
    const shared = [...byCode.values()].filter((names) => names.length > 1);
    expect(shared).toEqual([['GatewayRefused', 'StoreUnavailable']]);
  });
});

describe('an invalid upstream result', () => {
  it('says only the request failed, except for a handshake, whose connection fails instead', () => {
    // Found from outside: a garbage initialize answer was logged as "the upstream stays connected".
    expect(GatewayError.upstreamInvalidResult('docs', 'tools/call', 'x').message).toContain(
      'Only this request failed; the upstream stays connected.',
    );
    for (const method of ['initialize', 'server/discover']) {
      const { message } = GatewayError.upstreamInvalidResult('docs', method, 'the result is not an object');
      expect(message).toContain('The handshake failed; the gateway tries again with backoff.');
      expect(message).not.toContain('stays connected');
    }
  });
});

// Found from outside: a plugin's BigInt in the arguments made the send throw, taken for a broken connection.
describe('an upstream request whose params JSON cannot write', () => {
  it('fails that request -32603 internal, without calling the connection broken', () => {
    const broken = vi.fn();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const params of [{ arguments: { n: 1n } }, { arguments: cyclic }]) {
      const error = mapUpstreamError(new TypeError('Do not know how to serialize a BigInt'), {
        upstream: 'docs',
        method: 'tools/call',
        signal: undefined,
        timeoutMs: 1000,
        params,
        broken,
      });
      expect(error).toMatchObject({ code: -32603, data: { reason: 'internal', upstream: 'docs' } });
    }
    expect(broken).not.toHaveBeenCalled();
    mapUpstreamError(new TypeError('fetch failed'), {
      upstream: 'docs',
      method: 'tools/call',
      signal: undefined,
      timeoutMs: 1000,
      params: { arguments: {} },
      broken,
    });
    expect(broken).toHaveBeenCalledOnce();
  });
});
