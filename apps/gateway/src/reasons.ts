import { defineErrorReasons, type ReasonsOf } from '@switchyard/core';

/**
 * What the gateway's listeners refuse before any session or server sees a request (DESIGN §9, §10),
 * registered as the app's own reasons: core raises none of them. `httpStatus` is the status the HTTP
 * listener answers with (`httpStatusOf`, listeners/http-errors.ts; a test holds the two together).
 * The listeners' refusals core shares stay core's: `busy` (the approve plugin's too), `too_deep` and
 * `not_found` (core raises them), `forbidden`, `internal`, `store_unavailable`, `session_not_found`
 * (-32001, the SDKs' code, is not the app's to register) and `header_mismatch` (-32020, the spec's).
 */
export const GatewayReasons = defineErrorReasons('switchyard', {
  too_many_sessions: {
    code: -32000,
    httpStatus: 503,
    refusal: true,
    summary:
      'the gateway holds `limits.sessions` sessions (503), or this client `limits.sessionsPerClient` (429)',
  },
  body_too_large: {
    code: -32000,
    httpStatus: 413,
    refusal: true,
    summary: 'the request body is larger than `limits.maxBodyBytes`',
  },
  shutting_down: { code: -32000, httpStatus: 503, summary: 'the gateway is draining: reconnect and retry' },
  not_acceptable: { code: -32000, httpStatus: 406, summary: 'an `Accept` header without the needed types' },
  unsupported_protocol_version: {
    code: -32000,
    httpStatus: 400,
    summary: 'an `MCP-Protocol-Version` header the gateway does not speak',
  },
  session_required: { code: -32000, httpStatus: 400, summary: 'a request without `Mcp-Session-Id`' },
  initialize_required: { code: -32000, httpStatus: 400, summary: 'a request before `initialize`' },
  stream_conflict: { code: -32000, httpStatus: 409, summary: 'a second GET stream for the session' },
  invalid_last_event_id: { code: -32000, httpStatus: 400, summary: 'a `Last-Event-ID` no stream can resume' },
  replica_failed: {
    code: -32000,
    httpStatus: 502,
    summary: 'the replica serving the session died during the request: retry it',
  },
  session_moving: {
    code: -32000,
    httpStatus: 503,
    summary: 'the session is moving to another replica: retry',
  },
  issuer_unavailable: {
    code: -32000,
    httpStatus: 503,
    summary: "the OAuth issuer's metadata or keys cannot be fetched: retry after `Retry-After`",
  },
  parse_error: { code: -32700, httpStatus: 400, summary: 'the body is not JSON' },
  malformed_http: {
    code: -32600,
    httpStatus: 400,
    summary: "node's HTTP parser refused the request (431 for headers over 16 KiB)",
  },
  method_not_allowed: {
    code: -32600,
    httpStatus: 405,
    summary: 'an HTTP method the endpoint does not serve',
  },
  duplicate_request_id: {
    code: -32600,
    httpStatus: 400,
    summary: "a request with the id of one of the session's requests still in flight",
  },
  method_not_found: {
    code: -32601,
    httpStatus: 404,
    summary: 'a method the 2026-07-28 revision does not have (HTTP wire)',
  },
  missing_token: { code: -32600, httpStatus: 401, summary: 'no bearer token, and OAuth is configured' },
  invalid_token: { code: -32600, httpStatus: 401, summary: 'the OAuth access token was refused' },
  unauthorized: { code: -32600, httpStatus: 401, summary: 'no valid static client token' },
  insufficient_scope: {
    code: -32600,
    httpStatus: 403,
    summary: 'the OAuth access token lacks a required scope',
  },
});

declare module '@switchyard/core' {
  interface GatewayErrorReasons extends ReasonsOf<typeof GatewayReasons> {}
}
