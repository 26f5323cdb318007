import type { Client, Transport } from '@modelcontextprotocol/client';
import type { UpstreamConfig } from '../config.js';
import { DEFAULT_MAX_JSON_DEPTH, upstreamJsonDepth } from '../json-depth.js';
import type { Logger } from '../logger.js';
import { RateLimitedLog } from '../rate-limited-log.js';
import { createUpstreamTransport } from '../transports/upstream/create.js';
import type { CredentialSource } from './auth/upstream-auth.js';
import { CallCorrelation } from './correlation.js';
import { errorText } from './errors.js';
import { inboundGuard } from './inbound-guard.js';
import { LayeredTransport } from './layered-transport.js';
import type { UpstreamLimits } from './limits.js';
import { explainFailure } from './server-exit.js';
import { logStderr } from './stderr.js';
import { TASK_RESULTS_LAYER } from './task-results.js';
import { createUpstreamClient } from './upstream-client.js';

/** The parts of one attempt to connect to an upstream. */
export interface ConnectionAttempt {
  client: Client;
  /** Which downstream request each of the attempt's requests (and server-to-client requests) belongs to. */
  correlation: CallCorrelation;
  /** The transport to connect the client with (wrapped by the correlation). */
  transport: Transport;
  /**
   * What a failure of this attempt is reported as (`explainFailure`): how its spawned server ended, when it
   * ended by itself `when` (e.g. "before its handshake"). Call it before closing the transport.
   */
  explain(error: unknown, when: string): Promise<unknown>;
}

/**
 * Prepares one attempt to connect to an upstream: its transport, whose requests carry the upstream's
 * credentials (`auth`) for the caller each serves, guarded so that whatever the upstream sends costs at
 * most the request it answers (`guardInbound`), a spawned server's stderr logged line by line, and the
 * SDK client that relays what the upstream sends on its own.
 */
export function prepareAttempt(
  config: UpstreamConfig,
  auth: CredentialSource | undefined,
  notify: (method: string, params: unknown) => void,
  log: Logger,
  limits: UpstreamLimits,
): ConnectionAttempt {
  const correlation = new CallCorrelation();
  // An upstream may ask what nobody can answer at any rate: the log says so at most once per window.
  const noise = new RateLimitedLog(log);
  const credentials = auth?.bind((message) => correlation.callerOf(message));
  const { transport, stderr, mask, exited } = createUpstreamTransport(config.transport, credentials);
  if (stderr) logStderr(stderr, log, { mask });
  const client = createUpstreamClient(
    config.timeoutMs,
    {
      notify,
      relay: (method, params, id, signal) =>
        correlation.relay(method, params, id, signal).catch((error: unknown) => {
          noise.warn(`relay:${method}`, `could not relay ${method}`, { error: errorText(error) });
          throw error;
        }),
    },
    config.transport.kind,
  );
  client.onerror = (error) => log.debug('transport error', { error: error.message });
  const guard = inboundGuard(transport, {
    upstream: config.name,
    log,
    maxResultBytes: () => limits.maxResultBytes,
    maxJsonDepth: () => upstreamJsonDepth(limits.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH),
  });
  // One object between the SDK client and the transport: the guard nearest the transport, the
  // correlation nearest the client.
  const layered = new LayeredTransport(transport, [guard, TASK_RESULTS_LAYER, correlation.layer(transport)]);
  const explain = (error: unknown, when: string) => explainFailure(error, exited, when);
  return { client, correlation, transport: layered, explain };
}
