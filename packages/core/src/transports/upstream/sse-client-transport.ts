import { type JSONRPCMessage, SSEClientTransport } from '@modelcontextprotocol/client';
import type { InboundFaults, UpstreamClientTransport } from './faults.js';
import { failsAlone, httpFailure } from './http-wire.js';

/**
 * The SDK's legacy HTTP+SSE transport, except that an HTTP error page answering one request's POST (a 500
 * from the server or a proxy) fails that request alone (DESIGN §11) instead of throwing out of `send`,
 * which the gateway would take for a broken connection.
 */
export class SseClientTransport extends SSEClientTransport implements UpstreamClientTransport {
  faults?: InboundFaults;

  override async send(message: JSONRPCMessage): Promise<void> {
    try {
      await super.send(message);
    } catch (error) {
      const alone = failsAlone(message);
      const status = /\(HTTP (\d{3})\): ?([\s\S]*)$/.exec(error instanceof Error ? error.message : '');
      if (!this.faults || !status || alone === undefined) throw error;
      this.faults.failed(alone, httpFailure(status[1]!, undefined, status[2] ?? ''), {
        status: Number(status[1]),
      });
    }
  }
}
