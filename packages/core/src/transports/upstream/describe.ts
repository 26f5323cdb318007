import type { UpstreamTransportConfig } from '../../config.js';

/** A short description for logs that never includes header values (they may hold tokens). */
export function describeTransport(config: UpstreamTransportConfig): string {
  switch (config.kind) {
    case 'stdio':
      return `stdio: ${[config.command, ...config.args].join(' ')}`;
    case 'http':
      return `streamable-http: ${redactUrl(config.url)}`;
    case 'sse':
      return `sse: ${redactUrl(config.url)}`;
    case 'ws':
      return `websocket: ${redactUrl(config.url)}`;
  }
}

function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username || url.password) {
      url.username = url.username ? '***' : '';
      url.password = url.password ? '***' : '';
    }
    return url.toString();
  } catch {
    return raw;
  }
}
