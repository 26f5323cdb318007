// The public API of @switchyard/core: what plugin authors and embedders use (a Gateway, its options and
// what it reports, openSession to serve it over any SDK transport, plugins, errors, stores, naming). Test
// helpers live at @switchyard/core/testing; the pieces the switchyard app's listeners, replicas and process
// code are built from at @switchyard/core/listener; everything else is internal.

export { canonicalJson, jsonDigest } from './canonical-json.js';
export {
  DEFAULT_TIMEOUT_MS,
  type PersonalAuthConfig,
  type UpstreamAuthConfig,
  type UpstreamConfig,
  type UpstreamTransportConfig,
} from './config.js';
export type {
  DownstreamClient,
  DownstreamTransportKind,
  Identity,
  ProgressUpdate,
  RequestContext,
  RequestMiddleware,
  RequestTarget,
  SessionSink,
} from './context.js';
export type { ResumableStream } from './downstream/resumable-stream.js';
export { type DownstreamSession, openSession, type SessionOptions } from './downstream/session.js';
export {
  defineErrorReasons,
  type ErrorReason,
  type ErrorReasonSpec,
  type ErrorReasons,
  type ReasonsOf,
  registeredErrorReason,
  registeredErrorReasons,
} from './error-reasons.js';
export {
  CORE_ERROR_REASONS,
  type CoreErrorReason,
  ErrorCode,
  GatewayError,
  type GatewayErrorData,
  type GatewayErrorReason,
  type GatewayErrorReasons,
  isResourceNotFound,
} from './errors.js';
export {
  CALL_TOOL,
  gatewayTools,
  isGatewayTool,
  SEARCH_TOOLS,
} from './features/tool-search/gateway-tools.js';
export {
  Gateway,
  type GatewayOptions,
  type UpstreamChanges,
  type UpstreamStatus,
  type VirtualServerSummary,
} from './gateway.js';
export { DEFAULT_ANONYMOUS_ID } from './identity.js';
export { type Ask, AskFailed, type Question } from './interaction/ask.js';
export { missingCapability } from './interaction/capabilities.js';
export { InputRequired } from './interaction/input-required.js';
export type { InventoryCounts, InventoryOptions } from './listing/inventory.js';
export { TRUNCATED_META_KEY, UNAVAILABLE_META_KEY } from './listing/merged.js';
export { createLogger, type Logger, type LogLevel, silentLogger } from './logger.js';
export type { Outcome } from './middleware.js';
export { type CurationConfig, globToRegExp, nameFilter } from './naming/curation.js';
export { EXPOSED_NAME_PATTERN, exposeName, NAME_SEPARATOR, splitExposedName } from './naming/names.js';
export {
  type NormalizeOptions,
  normalizePattern,
  normalizeUri,
  uriReadings,
} from './naming/uri-readings.js';
export { expandUriTemplate, exposeUri, SERVER_NAME_PATTERN, splitExposedUri } from './naming/uris.js';
export { isRecord } from './payload.js';
export type {
  FoundAdminRoute,
  PluginAdmin,
  PluginAdminRequest,
  PluginAdminResponse,
  PluginAdminRoute,
} from './plugins/admin.js';
export {
  definePlugin,
  type NamedRoute,
  type PluginDefinition,
  type PluginGateway,
  type PluginHooks,
  type PluginSetupContext,
  type ResourceRoute,
  type SwitchyardPlugin,
  type TaskRoute,
  type UpstreamNotification,
} from './plugins/define.js';
export { PluginError, type PluginErrorCode } from './plugins/error.js';
export type { PluginEvent, PluginEventInput, PluginEvents } from './plugins/events.js';
export {
  checkPlugins,
  type LoadedPlugin,
  type PluginEntry,
  type PluginHost,
  setupPlugins,
} from './plugins/host.js';
export { runCloseHooks as closePlugins } from './plugins/lifecycle.js';
export { type OptionsSchema, validateOptions } from './plugins/options.js';
export type { StandardSchemaV1 } from './plugins/standard-schema.js';
export type { UpstreamCall, UpstreamCallContext, UpstreamCallMiddleware } from './plugins/upstream-call.js';
export type { SearchableTool } from './search/documents.js';
export {
  DEFAULT_TOOL_SEARCH_OPTIONS,
  SEARCH_FIELDS,
  type SearchField,
  type ToolSearchOptions,
} from './search/options.js';
export { type ToolSearchHit, ToolSearchIndex, type ToolSearchQuery } from './search/tool-index.js';
export {
  APPROVAL_KEY,
  type ApprovalRecord,
  CACHE_STATUS_KEY,
  type CacheStatus,
  GATEWAY_REQUEST_KEY,
  PIN_QUARANTINED_KEY,
  SECRETS_FINDINGS_KEY,
} from './state-keys.js';
export type {
  GatewayStats,
  RequestRecord,
  StatsSnapshot,
  UpstreamCallStats,
} from './stats/recorder.js';
export type { SeriesBucket } from './stats/series.js';
export { MemoryStore } from './store/memory.js';
export { openStore, type StoreConfig } from './store/open.js';
export { DEFAULT_KEY_PREFIX, type RedisStoreConfig } from './store/redis-config.js';
export {
  type Store,
  type StoreCounters,
  type StorePubSub,
  StoreUnavailableError,
  type UnavailablePolicy,
} from './store/store.js';
export {
  escapeControls,
  redactUrl,
  upstreamSecretMask,
  upstreamSecrets,
} from './transports/upstream/describe.js';
export type { PersonalCredentials } from './upstream/auth/personal-credentials.js';
export {
  type AuthorizedRequest,
  isPersonal,
  type UpstreamCredentials,
} from './upstream/auth/upstream-auth.js';
export { DEFAULT_UPSTREAM_LIMITS, type UpstreamLimits } from './upstream/limits.js';
export {
  probeUpstream,
  type UpstreamCounts,
  type UpstreamDefinitions,
  type UpstreamProbe,
} from './upstream/probe.js';
export { CORE_VERSION } from './version.js';
export { EndpointView, type ToolSearchConfig, type VirtualServerConfig } from './views/endpoint-view.js';
export type { EndpointViews } from './views/endpoint-views.js';
export { NOT_EXPOSED_KEY } from './views/not-exposed.js';
