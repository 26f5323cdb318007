import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { UpstreamTransportConfig } from '../../config.js';
import type { UpstreamCredentials } from '../../upstream/auth/upstream-auth.js';
import { upstreamSecretMask } from './describe.js';
import type { UpstreamClientTransport } from './faults.js';
import { HttpClientTransport } from './http-client-transport.js';
import { SseClientTransport } from './sse-client-transport.js';
import { type ProcessExit, StdioClientTransport } from './stdio-client-transport.js';
import { WebSocketClientTransport } from './ws-client-transport.js';

/** A client transport for one upstream, plus the child's stderr when it is a spawned process. */
export interface UpstreamTransport {
  transport: UpstreamClientTransport;
  /** The child's stderr as it wrote it: each line goes through `mask` before it reaches the log. */
  stderr?: NodeJS.ReadableStream;
  /** What a text from or about this upstream becomes before it is shown (`upstreamSecretMask`). */
  mask: (text: string) => string;
  /**
   * A spawned process: how it ended by itself, once it has (`StdioClientTransport.exited`), its stderr
   * lines masked.
   */
  exited?: (withinMs: number) => Promise<ProcessExit | undefined>;
}

/**
 * The transport for one connection attempt. `credentials` (from the upstream's `auth`) authorize every
 * HTTP request it makes: per message on Streamable HTTP, the gateway's own on SSE and on the WebSocket
 * upgrade. A remote transport's errors never show its config's secrets (`maskingErrors`), nor a spawned
 * server's stderr its `env` values.
 */
export function createUpstreamTransport(
  config: UpstreamTransportConfig,
  credentials?: UpstreamCredentials,
): UpstreamTransport {
  const mask = upstreamSecretMask(config);
  switch (config.kind) {
    case 'stdio': {
      // Our own stdio transport (not the SDK's) is probed in place: each stdio upstream is spawned once.
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: { ...getDefaultEnvironment(), ...config.env },
        cwd: config.cwd,
      });
      const exited = async (withinMs: number) => {
        const exit = await transport.exited(withinMs);
        return exit && { ...exit, stderr: exit.stderr.map(mask) };
      };
      return { transport, stderr: transport.stderr, mask, exited };
    }
    case 'http': {
      const transport = new HttpClientTransport(new URL(config.url), config.headers, credentials);
      return { transport: maskingErrors(transport, mask), mask };
    }
    case 'ws': {
      const options = { headers: config.headers, credentials };
      const transport = new WebSocketClientTransport(new URL(config.url), options);
      return { transport: maskingErrors(transport, mask), mask };
    }
    case 'sse': {
      const transport = new SseClientTransport(new URL(config.url), config.headers, credentials);
      return { transport: maskingErrors(transport, mask), mask };
    }
  }
}

/**
 * `transport`, its errors (a failed start or send, `onerror`) with the secrets of its config masked
 * (`upstreamSecretMask`: the URL's, the configured headers', the OAuth client secret an issuer quoted, any
 * `Bearer`/`Basic` value an upstream's error page echoed): their text reaches the log, `/admin/status` and callers' errors, which never show
 * an upstream credential (docs/security.md).
 */
function maskingErrors(
  transport: UpstreamClientTransport,
  mask: (text: string) => string,
): UpstreamClientTransport {
  const start = transport.start.bind(transport);
  const send = transport.send.bind(transport);
  transport.start = async () => {
    try {
      await start();
    } catch (error) {
      throw maskError(error, mask);
    }
  };
  transport.send = async (message, options) => {
    try {
      await send(message, options);
    } catch (error) {
      throw maskError(error, mask);
    }
  };
  // An HTTP error page answering one request (`faults.failed`) becomes that request's error: masked too.
  let faults: UpstreamClientTransport['faults'];
  Object.defineProperty(transport, 'faults', {
    get: () => faults,
    set: (reporter: UpstreamClientTransport['faults']) => {
      faults = reporter && {
        oversized: (id, bytes, hasMethod) => reporter.oversized(id, bytes, hasMethod),
        unparsable: (text, where) => reporter.unparsable(mask(text), where),
        failed: (id, detail, data) => reporter.failed(id, mask(detail), data),
        abandoned: (detail) => reporter.abandoned?.(mask(detail)),
        maxBytes: () => reporter.maxBytes(),
      };
    },
    configurable: true,
    enumerable: true,
  });
  let onerror: UpstreamClientTransport['onerror'];
  Object.defineProperty(transport, 'onerror', {
    get: () => onerror,
    set: (handler: UpstreamClientTransport['onerror']) => {
      onerror = handler && ((error) => handler(maskError(error, mask)));
    },
    configurable: true,
    enumerable: true,
  });
  return transport;
}

/** `error` (and its causes), their messages and stacks masked in place: its type stays what callers test. */
function maskError<T>(error: T, mask: (text: string) => string): T {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    try {
      current.message = mask(current.message);
      if (current.stack !== undefined) current.stack = mask(current.stack);
    } catch {
      // a read-only message (a DOMException): left as it is
    }
    current = current.cause;
  }
  return error;
}
