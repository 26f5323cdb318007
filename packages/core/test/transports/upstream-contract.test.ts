import {
  type JSONRPCMessage,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import type { InboundFaults, UpstreamClientTransport } from '../../src/transports/upstream/faults.js';
import { HttpClientTransport } from '../../src/transports/upstream/http-client-transport.js';
import { StdioClientTransport } from '../../src/transports/upstream/stdio-client-transport.js';
import { WebSocketClientTransport } from '../../src/transports/upstream/ws-client-transport.js';
import { Cleanup } from '../support/gateway.js';
import {
  FrameTransport,
  HttpServerPeer,
  holding,
  lineChannel,
  notification,
  RELAY_SCRIPT,
  recordCloses,
  sdkPair,
  tcpServer,
  within,
  wsChannel,
  wsServer,
} from './peers.js';

// The contract every upstream (client side) transport keeps, run against each of ours and the SDK's own
// equivalents: stdio through a real child process (a relay to a loopback socket the test serves), WebSocket
// and Streamable HTTP over loopback. Where one legitimately differs, the table says how.

/** The server's end, and what it can do besides speaking JSON-RPC. */
interface ServerEnd {
  /** The server side of the connection once the client reached it (an SDK `Server` can be connected to it). */
  server(): Promise<Transport>;
  /** Sends the client a frame that is no JSON-RPC message. */
  malformed(): void;
  /** The server goes away (its process or connection gone). */
  goAway(): Promise<void>;
}

interface Subject {
  name: string;
  open(): Promise<{ transport: Transport; peer: ServerEnd; dispose: () => Promise<void> }>;
  /**
   * A malformed frame: reported to the guard's `faults`, reported through `onerror`, or dropped silently.
   * Either way the connection stays up and the next message arrives.
   */
  malformed: 'faults' | 'onerror' | 'dropped';
  /** A second `close()`: does nothing, or (the SDK's Streamable HTTP transport) fires `onclose` again. */
  closeAgain: 'no-op' | 'fires-onclose-again';
  /** `send` after `close`: throws at once (no promise), or rejects. */
  sendAfterClose: 'throws' | 'rejects';
  /**
   * The server going away: `onclose` (a process or socket ended), or, with no connection to end (HTTP),
   * the next send rejects.
   */
  serverGone: 'onclose' | 'send-rejects';
}

const NOT_JSON = '{"jsonrpc": "2.0", "method": unterminated';

/** What our transports report, as the gateway's inbound guard would be told. */
function recordFaults(transport: UpstreamClientTransport): string[] {
  const unparsable: string[] = [];
  const faults: InboundFaults = {
    oversized: () => {},
    unparsable: (text) => unparsable.push(text),
    failed: () => {},
    maxBytes: () => 1024 * 1024,
  };
  transport.faults = faults;
  return unparsable;
}

/** A stdio client transport spawning the relay; the server end is the relay's loopback connection. */
function overRelay(make: (args: string[]) => Transport): Subject['open'] {
  return async () => {
    const tcp = await tcpServer();
    const transport = make(['-e', RELAY_SCRIPT, String(tcp.port)]);
    let end: FrameTransport | undefined;
    const accepted = tcp.accepted().then((socket) => {
      end = new FrameTransport(lineChannel(socket));
      return end;
    });
    const peer: ServerEnd = {
      server: () => within(accepted, 'the relay to connect'),
      malformed: () => end?.raw(NOT_JSON),
      goAway: async () => void (await accepted).close(),
    };
    return { transport, peer, dispose: () => tcp.close() };
  };
}

function overHttp(make: (url: URL) => Transport): Subject['open'] {
  return async () => {
    const http = new HttpServerPeer();
    const transport = make(await http.listen());
    const peer: ServerEnd = {
      server: async () => http,
      malformed: () => http.raw(NOT_JSON),
      goAway: () => http.goAway(),
    };
    return { transport, peer, dispose: () => http.close() };
  };
}

const env = process.env as Record<string, string>;

const SUBJECTS: Subject[] = [
  {
    name: 'StdioClientTransport (ours)',
    open: overRelay((args) => new StdioClientTransport({ command: process.execPath, args, env })),
    malformed: 'faults',
    closeAgain: 'no-op',
    sendAfterClose: 'throws',
    serverGone: 'onclose',
  },
  {
    name: 'StdioClientTransport (SDK)',
    open: overRelay((args) => new SdkStdioClientTransport({ command: process.execPath, args })),
    malformed: 'dropped',
    closeAgain: 'no-op',
    sendAfterClose: 'rejects',
    serverGone: 'onclose',
  },
  {
    name: 'WebSocketClientTransport (ours)',
    open: async () => {
      const { wss, port, close } = await wsServer();
      let end: FrameTransport | undefined;
      const accepted = new Promise<FrameTransport>((resolve) =>
        wss.once('connection', (socket) => {
          end = new FrameTransport(wsChannel(socket));
          resolve(end);
        }),
      );
      const transport = new WebSocketClientTransport(new URL(`ws://127.0.0.1:${port}`));
      const peer: ServerEnd = {
        server: () => within(accepted, 'the WebSocket connection'),
        malformed: () => end?.raw(NOT_JSON),
        goAway: async () => void (await accepted).close(),
      };
      return { transport, peer, dispose: close };
    },
    malformed: 'faults',
    closeAgain: 'no-op',
    sendAfterClose: 'rejects',
    serverGone: 'onclose',
  },
  {
    name: 'HttpClientTransport (ours, Streamable HTTP)',
    open: overHttp((url) => new HttpClientTransport(url)),
    malformed: 'faults',
    closeAgain: 'no-op',
    sendAfterClose: 'rejects',
    serverGone: 'send-rejects',
  },
  {
    name: 'StreamableHTTPClientTransport (SDK)',
    open: overHttp((url) => new StreamableHTTPClientTransport(url)),
    malformed: 'onerror',
    closeAgain: 'fires-onclose-again',
    sendAfterClose: 'rejects',
    serverGone: 'send-rejects',
  },
];

const INITIALIZED: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/initialized' };

describe.each(SUBJECTS)('upstream transport contract: $name', (subject) => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  async function open() {
    const opened = await subject.open();
    cleanup.add(opened.dispose);
    cleanup.add(() => opened.transport.close());
    const faults =
      subject.malformed === 'faults' ? recordFaults(opened.transport as UpstreamClientTransport) : [];
    const received: JSONRPCMessage[] = [];
    opened.transport.onmessage = (message) => received.push(message);
    const closes = recordCloses(opened.transport);
    return { ...opened, received, closes, faults };
  }

  /** Starts the transport and tells the server it is initialized (an HTTP client opens its GET stream then). */
  async function started(opened: Awaited<ReturnType<typeof open>>) {
    await within(opened.transport.start(), 'start');
    const server = await opened.peer.server();
    const serverReceived: JSONRPCMessage[] = [];
    server.onmessage = (message) => serverReceived.push(message);
    await server.start();
    await opened.transport.send(INITIALIZED);
    await holding(serverReceived, 1, 'the server to hear notifications/initialized');
    return { server, serverReceived };
  }

  it('after start, what the server sends arrives through onmessage, in order', async () => {
    const opened = await open();
    const { server } = await started(opened);
    for (let n = 0; n < 5; n++) await server.send(notification(n));
    await holding(opened.received, 5, 'five messages');
    expect(opened.received).toEqual([0, 1, 2, 3, 4].map(notification));
  });

  it('send delivers to the server', async () => {
    const opened = await open();
    const { serverReceived } = await started(opened);
    await opened.transport.send(notification(7));
    await holding(serverReceived, 2, 'the server to receive it');
    expect(serverReceived).toEqual([INITIALIZED, notification(7)]);
  });

  it('carries initialize and a request between an SDK Client and an SDK Server', async () => {
    const { transport, peer } = await open();
    const { server, client } = sdkPair();
    cleanup.add(() => client.close());
    cleanup.add(() => server.close());
    const connected = client.connect(transport);
    await server.connect(await peer.server());
    await within(connected, 'the handshake');
    expect(client.getServerVersion()?.name).toBe('contract');
    const { tools } = await within(client.listTools(), 'tools/list');
    expect(tools.map((tool) => tool.name)).toEqual(['echo']);
  });

  it(`close() fires onclose once and may be called again (${subject.closeAgain})`, async () => {
    const opened = await open();
    await started(opened);
    await within(opened.transport.close(), 'close');
    await within(opened.transport.close(), 'close again');
    await within(opened.closes.closed.promise, 'onclose');
    await new Promise((resolve) => setImmediate(resolve));
    expect(opened.closes.count).toBe(subject.closeAgain === 'no-op' ? 1 : 2);
  });

  it(`send after close does not hang (${subject.sendAfterClose})`, async () => {
    const opened = await open();
    await started(opened);
    await within(opened.transport.close(), 'close');
    await within(opened.closes.closed.promise, 'onclose');
    const send = () => opened.transport.send(notification(1));
    if (subject.sendAfterClose === 'throws') expect(send).toThrow();
    else await expect(within(send(), 'send after close')).rejects.toThrow();
  });

  it(`the server going away is seen (${subject.serverGone})`, async () => {
    const opened = await open();
    await started(opened);
    await opened.peer.goAway();
    if (subject.serverGone === 'onclose') {
      await within(opened.closes.closed.promise, 'onclose after the server went away');
      expect(opened.closes.count).toBe(1);
    } else {
      const request: JSONRPCMessage = { jsonrpc: '2.0', id: 1, method: 'ping' };
      await expect(within(opened.transport.send(request), 'send to a server that is gone')).rejects.toThrow();
    }
  });

  it(`a malformed frame does not break the connection (${subject.malformed})`, async () => {
    const opened = await open();
    const errors: Error[] = [];
    opened.transport.onerror = (error) => errors.push(error);
    const { server } = await started(opened);
    opened.peer.malformed();
    await server.send(notification(1));
    await holding(opened.received, 1, 'the message after the malformed frame');
    expect(opened.received).toEqual([notification(1)]);
    if (subject.malformed === 'faults') expect(opened.faults).toEqual([NOT_JSON]);
    if (subject.malformed === 'onerror')
      expect(errors.map((error) => error.message)).toEqual([expect.stringMatching(/JSON/)]);
    else expect(errors).toEqual([]);
    expect(opened.closes.count).toBe(0);
  });
});
