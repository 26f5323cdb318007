import type { Client } from '@modelcontextprotocol/client';
import type { CallCorrelation } from './correlation.js';
import type { UpstreamRequestOptions } from './origin.js';
import { PASS_THROUGH, withoutEnvelope } from './pass-through.js';
import type { ToolHeaders } from './tool-headers.js';

/** Longer than any request lives: the SDK's own timer stays out of the way of a gateway deadline. */
const NO_SDK_TIMEOUT = 2_147_483_647;

/**
 * Sends one request on a connected upstream client: noted with its origin (so what the upstream sends
 * back about it finds its way), timed by the SDK or by the caller's pausable deadline, progress relayed
 * (and restarting the deadline when asked), a modern upstream given the caller's envelope keys and, on
 * a tool call, the `Mcp-Param-*` headers its tool declares (learned from its `tools/list` answers).
 * Rejects with whatever the SDK throws; the connection maps that.
 */
export async function sendRequest(
  client: Client,
  correlation: CallCorrelation,
  method: string,
  params: Record<string, unknown> | undefined,
  options: UpstreamRequestOptions,
  timeoutMs: number,
  tools?: ToolHeaders,
): Promise<Record<string, unknown>> {
  const { origin, deadline } = options;
  const keepAlive = options.keepAliveOnProgress === true;
  const relay = options.onProgress ?? (keepAlive ? ignoreProgress : undefined);
  const onprogress =
    deadline && keepAlive && relay
      ? (progress: Parameters<typeof relay>[0]) => {
          deadline.touch();
          relay(progress);
        }
      : relay;
  const modern = client.getProtocolEra() === 'modern';
  const headers = modern && method === 'tools/call' ? tools?.forCall(params) : undefined;
  const sent = withoutVersionClaim(params);
  const start = () =>
    client.request(
      { method, params: modern ? withEnvelope(sent, options.envelope) : sent } as never,
      PASS_THROUGH,
      {
        // With a deadline the gateway keeps time itself (it pauses while the client is asked something).
        timeout: deadline ? NO_SDK_TIMEOUT : timeoutMs,
        // The SDK's client reads only what a CancelSignal has of a request's signal (`Protocol.request`).
        signal: (deadline ? deadline.follow(options.signal) : options.signal) as AbortSignal | undefined,
        onprogress,
        resetTimeoutOnProgress: keepAlive,
        allowInputRequired: options.allowInputRequired,
        headers,
      },
    );
  try {
    const answer = await (origin ? correlation.track(origin, start) : start());
    const result = withoutEnvelope(answer as Record<string, unknown>);
    if (method === 'tools/list') tools?.learn(result);
    return result;
  } finally {
    deadline?.finish();
  }
}

const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * The params without the caller's claim of a protocol version in `_meta`: on this hop the version is the
 * one negotiated with the upstream (the SDK client writes it), and a caller's string (any string: it
 * became the MCP-Protocol-Version header, and one node cannot write took the upstream for down) never
 * replaces it.
 */
function withoutVersionClaim(
  params: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const meta = params?._meta;
  if (typeof meta !== 'object' || meta === null || !Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY))
    return params;
  const { [PROTOCOL_VERSION_META_KEY]: _claim, ...rest } = meta as Record<string, unknown>;
  return { ...params, _meta: rest };
}

/** A modern upstream gets the caller's envelope keys (client capabilities, log level). */
function withEnvelope(
  params: Record<string, unknown> | undefined,
  envelope: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!envelope) return params;
  const meta = params?._meta;
  return { ...params, _meta: { ...envelope, ...(typeof meta === 'object' ? meta : {}) } };
}

function ignoreProgress(): void {}
