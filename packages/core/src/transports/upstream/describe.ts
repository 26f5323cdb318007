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

/**
 * The URL without what may be a credential: userinfo, and every query value (`?api_key=…` is how many
 * hosted servers take a key), masked as `***`.
 */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username || url.password) {
      url.username = url.username ? '***' : '';
      url.password = url.password ? '***' : '';
    }
    if (url.search) {
      const masked = new URLSearchParams();
      for (const key of url.searchParams.keys()) masked.append(key, '***');
      url.search = masked.toString().replaceAll('%2A%2A%2A', '***');
    }
    return url.toString();
  } catch {
    return '(an invalid URL)';
  }
}
