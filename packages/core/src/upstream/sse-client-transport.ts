import { type JSONRPCMessage, SSEClientTransport } from '@modelcontextprotocol/client';
import { describePage } from './http-wire.js';
import type { FaultReporting, InboundFaults } from './inbound-guard.js';

/** Requests of the handshake: their HTTP failures are for the SDK's era negotiation to judge. */
const HANDSHAKE = new Set(['initialize', 'server/discover']);

/**
 * The SDK's legacy HTTP+SSE transport, except that an HTTP error page answering one request's POST (a 500
 * from the server or a proxy) fails that request alone (DESIGN §11) instead of throwing out of `send`,
 * which the gateway would take for a broken connection.
 */
export class SseClientTransport extends SSEClientTransport implements FaultReporting {
  faults?: InboundFaults;
  maxMessageBytes?: number;

  override async send(message: JSONRPCMessage): Promise<void> {
    try {
      await super.send(message);
    } catch (error) {
      const { id, method } = message as { id?: string | number; method?: string };
      const status = /\(HTTP (\d{3})\): ?([\s\S]*)$/.exec(error instanceof Error ? error.message : '');
      if (!this.faults || !status || id === undefined || method === undefined || HANDSHAKE.has(method))
        throw error;
      const page = describePage(status[2] ?? '');
      this.faults.failed(id, `HTTP ${status[1]}${page ? `: ${page}` : ''}`, { status: Number(status[1]) });
    }
  }
}
