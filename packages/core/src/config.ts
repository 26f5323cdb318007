import type { CurationConfig } from './naming/curation.js';

/** How the gateway reaches one upstream MCP server (the `mcpServers` entries of the config). */
export type UpstreamTransportConfig =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | {
      kind: 'http';
      url: string;
      headers: Record<string, string>;
      auth?: UpstreamAuthConfig | PersonalAuthConfig;
    }
  | { kind: 'sse'; url: string; headers: Record<string, string>; auth?: UpstreamAuthConfig }
  | { kind: 'ws'; url: string; headers: Record<string, string>; auth?: UpstreamAuthConfig };

/**
 * `mcpServers.*.auth.user` (DESIGN §14): the upstream authorizes each *person* (OAuth authorization code
 * + PKCE), so the gateway calls it with the caller's own token, one connection per person, and asks a
 * caller without one to connect. Discovery, registration and the tokens are the gateway app's
 * (`PersonalCredentials`); the core only routes.
 */
export interface PersonalAuthConfig {
  kind: 'user';
  /** A client id registered at the upstream's authorization server (else CIMD, else dynamic registration). */
  clientId?: string;
  clientSecret?: string;
  /** Space-separated scopes to ask for (default: what the server's protected resource metadata lists). */
  scope?: string;
}

/**
 * The gateway's own OAuth credentials for one remote upstream (`mcpServers.*.auth`). A client's token is
 * never forwarded upstream. `clientCredentials`: one token for the gateway itself (any remote transport).
 * `tokenExchange` (RFC 8693, Streamable HTTP only): per caller, the caller's own OAuth access token
 * exchanged at the issuer for a token meant for this upstream, so the upstream sees who is asking.
 *
 * @example
 * { kind: 'clientCredentials', issuer: 'https://idp.example.com', clientId: 'switchyard', clientSecret: '…', scope: 'repo:read' }
 */
export interface UpstreamAuthConfig {
  kind: 'clientCredentials' | 'tokenExchange';
  /** The authorization server; its token endpoint is discovered from its metadata (RFC 8414 / OIDC). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  /** RFC 8707 resource indicator sent with every token request; undefined sends none. */
  resource?: string;
  /** An `audience` parameter for issuers that name the target that way (RFC 8693, Auth0). */
  audience?: string;
}

export interface UpstreamConfig {
  /** Matches `^[a-z][a-z0-9-]*$`; used as the URI prefix. */
  name: string;
  transport: UpstreamTransportConfig;
  /** Expose this server's URIs as `name+uri` and its tool and prompt names as `name__tool` (default true). */
  prefix: boolean;
  /** Timeout of every request to this upstream, in ms (default 30 000); progress restarts it for tool calls. */
  timeoutMs: number;
  /** Which of the upstream's own tool names are exposed (allow/deny globs); default all. */
  tools?: CurationConfig;
  /** Which of the upstream's own prompt names are exposed (allow/deny globs); default all. */
  prompts?: CurationConfig;
  /** The gateway is not ready (`/readyz`) while this upstream is not connected (default false). */
  required?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
