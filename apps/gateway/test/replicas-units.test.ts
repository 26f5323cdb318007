import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { GatewayError } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { advertisedUrl } from '../src/replicas/advertise.js';
import { ForwardProof } from '../src/replicas/forward-proof.js';
import type { SessionRecord } from '../src/replicas/session-directory.js';
import { initializeParams, SessionIds } from '../src/replicas/session-ids.js';
import { RESTORE_ID_PREFIX, SessionRecorder } from '../src/replicas/session-recorder.js';

const INIT = {
  protocolVersion: '2025-11-25',
  capabilities: { elicitation: { form: {} } },
  clientInfo: { name: 'cli', version: '1.2.3' },
};

describe('SessionIds', () => {
  const ids = new SessionIds('secret-a');

  it('mints an id it can open again for any initialize: one too large keeps the version and client name', () => {
    const init = { ...INIT, capabilities: { experimental: { blob: 'x'.repeat(8000) } } };
    const { id } = ids.mint({ owner: 'http://10.0.0.1:7480', identity: 'alice', init });
    expect(ids.open(id)?.init).toEqual({
      protocolVersion: INIT.protocolVersion,
      capabilities: {},
      clientInfo: { name: INIT.clientInfo.name, version: '' },
    });
  });

  it('seals the session key, owner, identity and initialize, and opens them again', () => {
    const { id, sid } = ids.mint({ owner: 'http://10.0.0.1:7480', identity: 'alice', init: INIT });
    expect(id.startsWith('sys1.')).toBe(true);
    expect(id).not.toContain('alice');
    expect(new SessionIds('secret-a').open(id)).toEqual({
      sid,
      owner: 'http://10.0.0.1:7480',
      identity: 'alice',
      init: INIT,
    });
  });

  it('opens nothing that was altered, made up, or sealed under another secret', () => {
    const { id } = ids.mint({ owner: 'http://a', identity: 'alice', init: INIT });
    const altered = `${id.slice(0, 30)}${id[30] === 'A' ? 'B' : 'A'}${id.slice(31)}`;
    expect(ids.open(altered)).toBeUndefined();
    expect(ids.open('sys1.AAAA')).toBeUndefined();
    expect(ids.open('3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBeUndefined();
    expect(new SessionIds('secret-b').open(id)).toBeUndefined();
    expect(new SessionIds(undefined).open(id)).toBeUndefined();
  });

  it('mints a new session key each time', () => {
    const a = ids.mint({ owner: 'http://a', identity: 'alice', init: INIT });
    const b = ids.mint({ owner: 'http://a', identity: 'alice', init: INIT });
    expect(a.sid).not.toBe(b.sid);
  });
});

describe('initializeParams', () => {
  it('keeps what a takeover replays, not icons or unknown fields', () => {
    const params = {
      ...INIT,
      clientInfo: { ...INIT.clientInfo, title: 'CLI', icons: [{ src: 'data:image/png;base64,AAAA' }] },
      extra: 1,
    };
    expect(initializeParams(params)).toEqual({
      ...INIT,
      clientInfo: { name: 'cli', version: '1.2.3', title: 'CLI' },
    });
    expect(initializeParams({ capabilities: {} })).toBeUndefined();
    expect(initializeParams('x')).toBeUndefined();
  });
});

describe('ForwardProof', () => {
  it('proves a request came from a replica sharing the secret', () => {
    const proof = new ForwardProof('secret-a');
    const signed = proof.sign('sid-1');
    expect(new ForwardProof('secret-a').verify('sid-1', signed)).toBe(true);
    expect(proof.verify('sid-2', signed)).toBe(false);
    expect(new ForwardProof('secret-b').verify('sid-1', signed)).toBe(false);
    expect(proof.verify('sid-1', undefined)).toBe(false);
    expect(proof.verify('sid-1', 'x')).toBe(false);
  });
});

describe('advertisedUrl', () => {
  it('is the configured address, else the bound one, else an external IPv4 for a wildcard', () => {
    expect(advertisedUrl({ host: '0.0.0.0', advertise: 'http://10.1.2.3:7480/ignored' }, 9)).toBe(
      'http://10.1.2.3:7480',
    );
    expect(advertisedUrl({ host: '127.0.0.1' }, 7480)).toBe('http://127.0.0.1:7480');
    expect(advertisedUrl({ host: '::1' }, 7480)).toBe('http://[::1]:7480');
    expect(advertisedUrl({ host: '0.0.0.0' }, 7480)).toMatch(/^http:\/\/\d+\.\d+\.\d+\.\d+:7480$/);
  });
});

/** A transport that records what it sent and lets the test deliver messages. */
class Pipe implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  sent: JSONRPCMessage[] = [];
  async start() {}
  async send(message: JSONRPCMessage) {
    this.sent.push(message);
  }
  async close() {}
}

describe('SessionRecorder', () => {
  async function recorder() {
    const pipe = new Pipe();
    const record: SessionRecord = { owner: 'http://a', subscriptions: [] };
    const changes: SessionRecord[] = [];
    let uses = 0;
    const recorded = new SessionRecorder(pipe, record, {
      onChange: (r) => changes.push(structuredClone(r)),
      onUse: () => {
        uses += 1;
      },
    });
    recorded.onmessage = () => {};
    await recorded.start();
    const request = (id: string | number, method: string, params: Record<string, unknown>) =>
      pipe.onmessage?.({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    const answer = (id: string | number, ok = true) =>
      recorded.send(
        (ok
          ? { jsonrpc: '2.0', id, result: {} }
          : { jsonrpc: '2.0', id, error: { code: -32602, message: 'no' } }) as JSONRPCMessage,
      );
    return { record, changes, uses: () => uses, request, answer };
  }

  it('records subscriptions and the log level the gateway answered without error', async () => {
    const r = await recorder();
    r.request(1, 'resources/subscribe', { uri: 'docs+a' });
    r.request(2, 'resources/subscribe', { uri: 'docs+b' });
    r.request(3, 'logging/setLevel', { level: 'debug' });
    await r.answer(1);
    await r.answer(2, false); // refused: not recorded
    await r.answer(3);
    r.request(4, 'resources/unsubscribe', { uri: 'docs+a' });
    await r.answer(4);
    expect(r.changes).toEqual([
      { owner: 'http://a', subscriptions: ['docs+a'] },
      { owner: 'http://a', subscriptions: ['docs+a'], logLevel: 'debug' },
      { owner: 'http://a', subscriptions: [], logLevel: 'debug' },
    ]);
    expect(r.uses()).toBe(4);
  });

  it('passes on what its session answered the requests in flight with as it closed (closedWith)', async () => {
    // Found in review: with replicas, a request cut off at the end of the shutdown grace period got
    // 503 shutting_down while its audit record said -32603 cancelled (the recorder hid the answer).
    const pipe = new Pipe() as Pipe & { closedWith?: unknown };
    const recorded = new SessionRecorder(
      pipe,
      { owner: 'http://a', subscriptions: [] },
      {
        onChange: () => {},
        onUse: () => {},
      },
    );
    expect(recorded.closedWith).toBeUndefined();
    const shuttingDown = new GatewayError(-32000, 'The gateway is shutting down.', {
      reason: 'shutting_down',
    });
    pipe.closedWith = shuttingDown;
    expect(recorded.closedWith).toBe(shuttingDown);
  });

  it('does not record again what a takeover replays, nor other methods', async () => {
    const r = await recorder();
    r.request(`${RESTORE_ID_PREFIX}1`, 'resources/subscribe', { uri: 'docs+a' });
    await r.answer(`${RESTORE_ID_PREFIX}1`);
    r.request(5, 'tools/call', { name: 'x' });
    await r.answer(5);
    expect(r.changes).toEqual([]);
  });
});
