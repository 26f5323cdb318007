import {
  type Logger,
  probeUpstream,
  type UpstreamConfig,
  type UpstreamLimits,
  type UpstreamProbe,
  upstreamSecretMask,
} from '@switchyard/core';

/**
 * Probes every upstream of a config at once (each within its own `timeoutMs`), in config order (with
 * `definitions`, each result also carries the tools and prompts listed). Error
 * texts never carry the config's secrets: header values, stdio env values, OAuth client secrets and URL
 * credentials are masked wherever an upstream or a library happens to echo them.
 */
export async function probeUpstreams(
  upstreams: readonly UpstreamConfig[],
  logger?: Logger,
  limits?: UpstreamLimits,
  options: { definitions?: boolean } = {},
): Promise<UpstreamProbe[]> {
  const probes = await Promise.all(
    upstreams.map((u) => probeUpstream(u, { logger, limits, definitions: options.definitions })),
  );
  const mask = maskOf(upstreams);
  return probes.map((probe) => (probe.ok ? probe : { ...probe, error: mask(probe.error) }));
}

/** Whether every probe connected and listed everything. */
export function allOk(probes: readonly UpstreamProbe[]): boolean {
  return probes.every((p) => p.ok);
}

/**
 * Masks the secrets of every upstream of the config (`upstreamSecretMask`, the list the gateway's own logs
 * and `/admin/status` mask): a probe's error may quote another upstream's secret (a shared header value).
 */
function maskOf(upstreams: readonly UpstreamConfig[]): (text: string) => string {
  const masks = upstreams.map((u) => upstreamSecretMask(u.transport));
  return (text) => masks.reduce((masked, mask) => mask(masked), text);
}
