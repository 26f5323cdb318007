/**
 * The URL one signal (`traces`, `metrics`) is exported to, from the OTLP/HTTP base endpoint (the config's
 * `otlp.endpoint`, `OTEL_EXPORTER_OTLP_ENDPOINT`): `v1/<signal>` appended to its path, as the OTLP
 * exporter spec says for the base endpoint, its query kept where it is (`…/otlp?key=K` exports to
 * `…/otlp/v1/metrics?key=K`, not `…?key=K/v1/metrics`). An endpoint `URL` cannot parse goes as it is.
 */
export function signalUrl(endpoint: string, signal: 'traces' | 'metrics'): string {
  if (!URL.canParse(endpoint)) return `${endpoint.replace(/\/+$/, '')}/v1/${signal}`;
  const url = new URL(endpoint);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/${signal}`;
  return url.href;
}
