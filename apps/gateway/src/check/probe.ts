import {
  type Logger,
  probeUpstream,
  type UpstreamConfig,
  type UpstreamLimits,
  type UpstreamProbe,
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
  const secrets = secretsOf(upstreams);
  return probes.map((probe) => (probe.ok ? probe : { ...probe, error: mask(probe.error, secrets) }));
}

/** Whether every probe connected and listed everything. */
export function allOk(probes: readonly UpstreamProbe[]): boolean {
  return probes.every((p) => p.ok);
}

/** Values short enough to occur by chance (e.g. "1", "true") are not worth masking. */
const MIN_SECRET_LENGTH = 4;

function secretsOf(upstreams: readonly UpstreamConfig[]): string[] {
  const found = new Set<string>();
  for (const { transport } of upstreams) {
    if (transport.kind === 'stdio') {
      for (const value of Object.values(transport.env)) found.add(value);
      continue;
    }
    for (const value of Object.values(transport.headers)) found.add(value);
    if (transport.auth?.clientSecret) found.add(transport.auth.clientSecret);
    const url = URL.canParse(transport.url) ? new URL(transport.url) : undefined;
    if (url?.password) found.add(url.password).add(decodeURIComponent(url.password));
    if (url?.username) found.add(url.username).add(decodeURIComponent(url.username));
    // A key in the query string (`?api_key=…`), as hosted servers often take one (short values such as
    // `json` or `2` are settings, and masking them everywhere would garble the report).
    for (const value of url?.searchParams.values() ?? []) if (value.length >= 8) found.add(value);
  }
  // Longest first, so a secret that contains another is masked whole.
  return [...found].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

function mask(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.replaceAll(secret, '***');
  return out;
}
