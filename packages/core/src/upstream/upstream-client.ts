import { Client } from '@modelcontextprotocol/client';
import { CORE_VERSION } from '../version.js';

const GATEWAY_INFO = { name: 'switchyard', version: CORE_VERSION };
const PROBE_TIMEOUT_MS = 10_000;

/**
 * The SDK client the gateway speaks to one upstream with. It probes `server/discover` and speaks modern
 * to modern servers; anything else falls back to the legacy handshake (a silent stdio server counts as
 * legacy after a short probe timeout).
 */
export function createUpstreamClient(timeoutMs: number): Client {
  return new Client(GATEWAY_INFO, {
    capabilities: {},
    versionNegotiation: {
      mode: 'auto',
      probe: { timeoutMs: Math.min(timeoutMs, PROBE_TIMEOUT_MS) },
    },
  });
}
