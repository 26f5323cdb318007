import { Client } from '@modelcontextprotocol/client';
import type { UpstreamTransportConfig } from '../config.js';
import { CORE_VERSION } from '../version.js';

const GATEWAY_INFO = { name: 'switchyard', version: CORE_VERSION };
const PROBE_TIMEOUT_MS = 10_000;

const CLIENT_CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };

/** The server-to-client requests the gateway relays to downstream clients. */
const RELAYED_REQUESTS = ['sampling/createMessage', 'elicitation/create', 'roots/list'] as const;

/** Upstream notifications the gateway relays (the SDK drops those without a handler). */
const RELAYED_NOTIFICATIONS = [
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/message',
] as const;

/** Relayed too, but the SDK client has no typed handler for them (the 2025-11-25 task status). */
const UNTYPED_RELAYED_NOTIFICATIONS: ReadonlySet<string> = new Set(['notifications/tasks/status']);

/** Where what an upstream sends on its own goes. */
export interface UpstreamInbound {
  notify(method: string, params: unknown): void;
  /** A server-to-client request (sampling, elicitation, roots), answered by the client that caused it. */
  relay(
    method: string,
    params: Record<string, unknown>,
    id: string | number,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
}

/**
 * How long the era probe (`server/discover`) may wait. On stdio a silent server counts as legacy once the
 * probe times out, so the probe gets half the handshake's budget at most and `initialize` still goes out
 * within `timeoutMs`. Anywhere else (HTTP, WebSocket) the SDK takes a probe timeout for a failed
 * connection, so the probe gets the whole `timeoutMs`: a server is given up after its timeoutMs, not
 * before (DESIGN §11).
 */
function probeTimeoutMs(timeoutMs: number, transport: UpstreamTransportConfig['kind']): number {
  if (transport !== 'stdio') return timeoutMs;
  return Math.min(Math.max(1, Math.floor(timeoutMs / 2)), PROBE_TIMEOUT_MS);
}

/**
 * The SDK client the gateway speaks to one upstream with. It probes `server/discover` and speaks modern
 * to modern servers; anything else falls back to the legacy handshake (a silent stdio server counts as
 * legacy after a short probe timeout).
 */
export function createUpstreamClient(
  timeoutMs: number,
  inbound: UpstreamInbound,
  transport: UpstreamTransportConfig['kind'],
): Client {
  const client = new Client(GATEWAY_INFO, {
    // What the gateway can relay to the downstream client that caused a request. Whether that client
    // can really answer is checked per request (and a modern upstream is told its real capabilities).
    capabilities: CLIENT_CAPABILITIES,
    versionNegotiation: { mode: 'auto', probe: { timeoutMs: probeTimeoutMs(timeoutMs, transport) } },
  });
  for (const method of RELAYED_NOTIFICATIONS) {
    client.setNotificationHandler(method, (n) => inbound.notify(n.method, n.params));
  }
  client.fallbackNotificationHandler = async (n) => {
    if (UNTYPED_RELAYED_NOTIFICATIONS.has(n.method)) inbound.notify(n.method, n.params);
  };
  for (const method of RELAYED_REQUESTS) {
    client.setRequestHandler(
      method,
      (request, ctx) =>
        inbound.relay(method, request.params ?? {}, ctx.mcpReq.id, ctx.mcpReq.signal) as never,
    );
  }
  return client;
}
