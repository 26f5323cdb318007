import { Client } from '@modelcontextprotocol/client';
import { CORE_VERSION } from '../version.js';

const GATEWAY_INFO = { name: 'switchyard', version: CORE_VERSION };
const PROBE_TIMEOUT_MS = 10_000;

const CLIENT_CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };

/** The server-to-client requests the gateway relays to downstream clients. */
export const RELAYED_REQUESTS = ['sampling/createMessage', 'elicitation/create', 'roots/list'] as const;

/**
 * The SDK client the gateway speaks to one upstream with. It probes `server/discover` and speaks modern
 * to modern servers; anything else falls back to the legacy handshake (a silent stdio server counts as
 * legacy after a short probe timeout).
 */
export function createUpstreamClient(timeoutMs: number): Client {
  return new Client(GATEWAY_INFO, {
    // What the gateway can relay to the downstream client that caused a request. Whether that client
    // can really answer is checked per request (and a modern upstream is told its real capabilities).
    capabilities: CLIENT_CAPABILITIES,
    versionNegotiation: {
      mode: 'auto',
      probe: { timeoutMs: Math.min(timeoutMs, PROBE_TIMEOUT_MS) },
    },
  });
}
