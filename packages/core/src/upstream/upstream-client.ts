import { Client } from '@modelcontextprotocol/client';
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
 * The SDK client the gateway speaks to one upstream with. It probes `server/discover` and speaks modern
 * to modern servers; anything else falls back to the legacy handshake (a silent stdio server counts as
 * legacy after a short probe timeout).
 */
export function createUpstreamClient(timeoutMs: number, inbound: UpstreamInbound): Client {
  const client = new Client(GATEWAY_INFO, {
    // What the gateway can relay to the downstream client that caused a request. Whether that client
    // can really answer is checked per request (and a modern upstream is told its real capabilities).
    capabilities: CLIENT_CAPABILITIES,
    versionNegotiation: {
      mode: 'auto',
      // Half the handshake's budget at most: a silent server still gets `initialize` within `timeoutMs`.
      probe: { timeoutMs: Math.min(Math.max(1, Math.floor(timeoutMs / 2)), PROBE_TIMEOUT_MS) },
    },
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
