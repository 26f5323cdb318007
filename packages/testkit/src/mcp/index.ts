/**
 * `@switchyard/testkit/mcp`: the gateway launcher and the raw MCP clients (Streamable HTTP in both eras,
 * stdio, WebSocket) that tests, benchmarks, soak and conformance share.
 */
export { ChannelClient } from './channel.js';
export { type GatewayLaunch, type LaunchedGateway, launchGateway } from './gateway.js';
export {
  closeSessions,
  eachLimited,
  type HttpClientOptions,
  LEGACY_VERSION,
  LegacyHttpClient,
  MODERN_VERSION,
  ModernHttpClient,
  openSessions,
} from './http.js';
export { startTestkitHttp, type TestkitHttp, type TestkitHttpOptions, testkitCliPath } from './servers.js';
export {
  deleteRequest,
  type McpRequest,
  PendingRequests,
  type PostReply,
  parseMessages,
  postJson,
  type RequestClient,
  resultOf,
  rpcError,
} from './wire.js';
