// @switchyard/core/listener: the pieces the switchyard app's listeners (stdio, HTTP, WebSocket, admin) and
// its process and replicas code are built from: framing and envelope checks, the concrete downstream
// transports, refusals, bearer-token authentication, sealed tokens, a gateway's replica side
// (GatewayReplica) and the tool headers its HTTP listener checks, the upstream child processes' kill
// switches. Not the plugin API (that is the package index); a plugin never needs anything here.

export { Cancellation } from './cancellation.js';
export { deriveKey } from './derive-key.js';
export { envelopeVersion, isLegacyVersion } from './downstream/era.js';
export {
  checkEnvelope,
  decodeFrame,
  errorResponse,
  type InvalidMessage,
  type JsonRpcErrorResponse,
  parseError,
  tooDeep,
} from './downstream/jsonrpc.js';
export { ListenGate } from './downstream/listen-gate.js';
export { ListenTracker, listenedUris } from './downstream/listen-tracker.js';
export { messageJson } from './downstream/message-json.js';
export {
  answerModern,
  MODERN_VERSIONS,
  type ModernChannel,
  type ModernRequestMessage,
  type ModernResponse,
  type ModernRoute,
  modernRoute,
} from './downstream/modern-answers.js';
export { GatewayReplica } from './downstream/replica.js';
export type { InboundMessageInfo } from './downstream/request-context.js';
export type { ResumableStreamInfo } from './downstream/resumable-stream.js';
export type { AnsweringTransport } from './downstream/routed-transport.js';
export { TransportWrapper } from './downstream/transport-wrapper.js';
export { type Authentication, type ClientConfig, ClientDirectory, type ClientsConfig } from './identity.js';
export { attachSubjectToken, subjectTokenOf } from './identity-credential.js';
export { credentialOwner, type IdentityKind, identityKind } from './identity-kind.js';
export {
  DEFAULT_MAX_JSON_DEPTH,
  jsonTextTooDeep,
  jsonValueTooDeep,
  upstreamJsonDepth,
} from './json-depth.js';
export type { ParamHeaderDeclaration } from './param-headers/declarations.js';
export { checkParamHeaders, decodeParamValue, type ParamHeaderMismatch } from './param-headers/values.js';
export { MAX_STORED_SEALED_CHARS, SealedBox, SealedTooLarge } from './sealed-box.js';
export {
  JsonLineTransport,
  type JsonLineTransportOptions,
} from './transports/downstream/json-line-transport.js';
export {
  type WebSocketSessionOptions,
  WebSocketSessionTransport,
  WsCloseCode,
} from './transports/downstream/ws-session-transport.js';
export {
  exiting,
  killChildren,
  liveChildren,
  terminateChildren,
} from './transports/upstream/child-processes.js';
export {
  type WebSocketClientOptions,
  WebSocketClientTransport,
} from './transports/upstream/ws-client-transport.js';
export { DEFAULT_MAX_MESSAGE_BYTES, MCP_WS_SUBPROTOCOL } from './transports/websocket.js';
