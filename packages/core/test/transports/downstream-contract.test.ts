import { connect, type Socket } from 'node:net';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { JsonLineTransport } from '../../src/transports/downstream/json-line-transport.js';
import { WebSocketSessionTransport } from '../../src/transports/downstream/ws-session-transport.js';
import { MCP_WS_SUBPROTOCOL } from '../../src/transports/websocket.js';
import { Cleanup } from '../support/gateway.js';
import {
  FrameTransport,
  holding,
  lineChannel,
  notification,
  recordCloses,
  sdkPair,
  tcpServer,
  within,
  wsChannel,
  wsServer,
} from './peers.js';

// The contract every downstream (server side) transport keeps, run against each of ours and the SDK's own
// equivalents over real loopback sockets. Where one legitimately differs, the table says how.

/** The client's end of one connection, and what it can do besides speaking JSON-RPC. */
interface ClientEnd {
  /** Speaks JSON-RPC to the transport under test (an SDK `Client` can be connected to it). */
  client: Transport;
  /** Sends the transport a frame that is no JSON-RPC message. */
  malformed(): void;
  /** The client goes away (its connection cut). */
  goAway(): void;
}

interface Subject {
  name: string;
  open(): Promise<{ transport: Transport; peer: ClientEnd; dispose: () => Promise<void> }>;
  /**
   * A malformed frame: answered with a -32700 parse error, dropped silently, or (no framing: objects are
   * handed over) delivered to `onmessage` unchecked.
   */
  malformed: 'parse-error' | 'dropped' | 'delivered';
  /** `send` after `close`: resolves without writing, or rejects. */
  sendAfterClose: 'resolves' | 'rejects';
}

const NOT_JSON = '{"jsonrpc": "2.0", "method": unterminated';

/** A transport over one end of a loopback socket pair; the client speaks newline-delimited JSON on the other. */
function overSocketPair(make: (socket: Socket) => Transport): Subject['open'] {
  return async () => {
    const tcp = await tcpServer();
    const socket = connect(tcp.port, '127.0.0.1');
    await within(new Promise((resolve) => socket.once('connect', resolve)), 'the loopback connection');
    const client = new FrameTransport(lineChannel(socket));
    const transport = make(await within(tcp.accepted(), 'the accepted connection'));
    const peer: ClientEnd = {
      client,
      malformed: () => client.raw(NOT_JSON),
      goAway: () => void client.close(),
    };
    return { transport, peer, dispose: () => tcp.close() };
  };
}

const SUBJECTS: Subject[] = [
  {
    name: 'JsonLineTransport (ours, stdio framing)',
    open: overSocketPair((socket) => new JsonLineTransport(socket, socket)),
    malformed: 'parse-error',
    sendAfterClose: 'resolves',
  },
  {
    name: 'StdioServerTransport (SDK)',
    open: overSocketPair((socket) => new StdioServerTransport(socket, socket)),
    malformed: 'dropped',
    sendAfterClose: 'rejects',
  },
  {
    name: 'WebSocketSessionTransport (ours)',
    open: async () => {
      const { wss, port, close } = await wsServer();
      const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
      const socket = new WebSocket(`ws://127.0.0.1:${port}`, MCP_WS_SUBPROTOCOL);
      const client = new FrameTransport(wsChannel(socket));
      await within(new Promise((resolve) => socket.once('open', resolve)), 'the WebSocket to open');
      const transport = new WebSocketSessionTransport(await within(accepted, 'the accepted WebSocket'));
      const peer: ClientEnd = {
        client,
        malformed: () => client.raw(NOT_JSON),
        goAway: () => socket.terminate(),
      };
      const dispose = async () => {
        socket.terminate();
        await close();
      };
      return { transport, peer, dispose };
    },
    malformed: 'parse-error',
    sendAfterClose: 'resolves',
  },
  {
    name: 'InMemoryTransport (SDK)',
    open: async () => {
      const [client, transport] = InMemoryTransport.createLinkedPair();
      const peer: ClientEnd = {
        client,
        malformed: () => void client.send({ not: 'json-rpc' } as unknown as JSONRPCMessage),
        goAway: () => void client.close(),
      };
      return { transport, peer, dispose: async () => {} };
    },
    malformed: 'delivered',
    sendAfterClose: 'rejects',
  },
];

describe.each(SUBJECTS)('downstream transport contract: $name', (subject) => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  async function open() {
    const opened = await subject.open();
    cleanup.add(opened.dispose);
    cleanup.add(() => opened.transport.close());
    cleanup.add(() => opened.peer.client.close());
    const received: JSONRPCMessage[] = [];
    const peerReceived: JSONRPCMessage[] = [];
    opened.transport.onmessage = (message) => received.push(message);
    const closes = recordCloses(opened.transport);
    opened.peer.client.onmessage = (message) => peerReceived.push(message);
    return { ...opened, received, peerReceived, closes };
  }

  it('after start, what the client sends arrives through onmessage, in order', async () => {
    const { transport, peer, received } = await open();
    await transport.start();
    await peer.client.start();
    for (let n = 0; n < 5; n++) await peer.client.send(notification(n));
    await holding(received, 5, 'five messages');
    expect(received).toEqual([0, 1, 2, 3, 4].map(notification));
  });

  it('send delivers to the client', async () => {
    const { transport, peer, peerReceived } = await open();
    await transport.start();
    await peer.client.start();
    await transport.send(notification(7));
    await holding(peerReceived, 1, 'the client to receive it');
    expect(peerReceived).toEqual([notification(7)]);
  });

  it('carries initialize and a request between an SDK Client and an SDK Server', async () => {
    const { transport, peer } = await open();
    const { server, client } = sdkPair();
    cleanup.add(() => client.close());
    cleanup.add(() => server.close());
    await server.connect(transport);
    await within(client.connect(peer.client), 'the handshake');
    expect(client.getServerVersion()?.name).toBe('contract');
    const { tools } = await within(client.listTools(), 'tools/list');
    expect(tools.map((tool) => tool.name)).toEqual(['echo']);
  });

  it('close() fires onclose exactly once and may be called again', async () => {
    const { transport, closes } = await open();
    await transport.start();
    await transport.close();
    await transport.close();
    await within(closes.closed.promise, 'onclose');
    await new Promise((resolve) => setImmediate(resolve));
    expect(closes.count).toBe(1);
  });

  it(`send after close does not hang (${subject.sendAfterClose})`, async () => {
    const { transport, closes } = await open();
    await transport.start();
    await transport.close();
    await within(closes.closed.promise, 'onclose');
    const sent = within(
      Promise.resolve().then(() => transport.send(notification(1))),
      'send after close',
    );
    if (subject.sendAfterClose === 'resolves') await expect(sent).resolves.toBeUndefined();
    else await expect(sent).rejects.toThrow();
  });

  it('the client going away fires onclose', async () => {
    const { transport, peer, closes } = await open();
    await transport.start();
    await peer.client.start();
    peer.goAway();
    await within(closes.closed.promise, 'onclose after the client went away');
    expect(closes.count).toBe(1);
  });

  it(`a malformed frame does not break the connection (${subject.malformed})`, async () => {
    const { transport, peer, received, peerReceived } = await open();
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    await peer.client.start();
    peer.malformed();
    await peer.client.send(notification(1));
    if (subject.malformed === 'delivered') {
      await holding(received, 2, 'both messages');
      expect(received).toEqual([{ not: 'json-rpc' }, notification(1)]);
      return;
    }
    await holding(received, 1, 'the message after the malformed frame');
    expect(received).toEqual([notification(1)]);
    if (subject.malformed === 'parse-error') {
      await holding(peerReceived, 1, 'the parse error');
      expect(peerReceived[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    } else {
      expect(peerReceived).toEqual([]);
      expect(errors).toEqual([]);
    }
  });
});
