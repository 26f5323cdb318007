import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import { fetchClientMetadataDocument } from './client-metadata-document.js';
import { alwaysConsentPolicy, interactionUrl, serveInteraction } from './interactions.js';
import { memoryAdapter } from './memory-adapter.js';

// A real OAuth 2.1 authorization server for per-user upstream authorization: oidc-provider in-process on
// a loopback port, with the authorization code grant (PKCE S256 required), refresh tokens, RFC 8707
// resource indicators minting JWT access tokens whose `aud` is the resource, dynamic client registration,
// revocation, RFC 9207 `iss` in authorization responses, and optionally Client ID Metadata Documents.
// Login and consent are the plain pages of ./interactions.ts (drive them with ./consent.ts).

/** A client registered ahead of time. Without a secret it is public (`token_endpoint_auth_method: none`). */
export interface PreRegisteredClient {
  clientId: string;
  clientSecret?: string;
  redirectUris: string[];
  /** Default `client_secret_basic` with a secret, `none` without. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
}

export interface AuthorizationServerOptions {
  clients?: PreRegisteredClient[];
  /** The scopes every resource accepts (default `['mcp']`); `openid` and `offline_access` come on top. */
  scopes?: string[];
  /** The resource indicators it mints tokens for (default: any http(s) URL); others get `invalid_target`. */
  resources?: string[];
  /** Access token lifetime (default 300 s); a few seconds lets a test see tokens expire and refresh. */
  accessTokenTtlSec?: number;
  /** Refresh token lifetime (default 3600 s). */
  refreshTokenTtlSec?: number;
  /** Replace the refresh token on every use (default true); the used one stops working. */
  rotateRefreshTokens?: boolean;
  /**
   * Accept URL client ids (Client ID Metadata Documents), including http://127.0.0.1 ones, and advertise
   * `client_id_metadata_document_supported: true` (default false).
   */
  clientIdMetadataDocuments?: boolean;
  /** Anything else oidc-provider accepts, applied over this configuration. */
  configure?: (config: Configuration) => Configuration;
}

/** How the token endpoint misbehaves: answer 500 `server_error`, or never answer. */
export type TokenEndpointFailure = 'error' | 'hang';

/** One call of the revocation endpoint. */
export interface Revocation {
  token: string;
  tokenTypeHint?: string;
  /** The authenticated client, if any. */
  clientId?: string;
  /** 200 (revoked, or unknown token), 400 (e.g. `unsupported_token_type` for a JWT access token), 401… */
  status: number;
}

export interface AuthorizationServer {
  /** The issuer identifier (no trailing slash), e.g. http://127.0.0.1:41234. */
  url: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  revocationEndpoint: string;
  registrationEndpoint: string;
  jwksUri: string;
  readonly provider: Provider;
  /** Paths requested so far, without query (e.g. `/token`, `/token/revocation`, `/reg`). */
  readonly requests: readonly string[];
  /** How many requests `path` got. */
  count(path: string): number;
  readonly revocations: readonly Revocation[];
  /** Metadata of the clients registered dynamically, in order (each with its `client_id`). */
  readonly registrations: readonly Record<string, unknown>[];
  /** Client ID Metadata Document URLs it fetched, in order. */
  readonly clientMetadataFetches: readonly string[];
  /** Makes the token endpoint fail from now on (`undefined`: work again). */
  failTokenEndpoint(mode: TokenEndpointFailure | undefined): void;
  /** Whether a refresh token is still usable (not revoked, rotated away or expired). */
  refreshTokenActive(token: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Starts an authorization server on 127.0.0.1 (ephemeral port). Always `close()` it. */
export async function startAuthorizationServer(
  options: AuthorizationServerOptions = {},
): Promise<AuthorizationServer> {
  const requests: string[] = [];
  const revocations: Revocation[] = [];
  const registrations: Record<string, unknown>[] = [];
  const clientMetadataFetches: string[] = [];
  let failure: TokenEndpointFailure | undefined;
  let provider: Provider | undefined;
  let handle: ((req: IncomingMessage, res: ServerResponse) => unknown) | undefined;

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    requests.push(path);
    route(req, res, path).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.destroy();
    });
  });
  const route = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    if (!provider || !handle) return void res.writeHead(503).end();
    if (path === '/token' && failure !== undefined) return void failToken(req, res, failure);
    if (await serveInteraction(provider, req, res)) return;
    // RFC 8414 metadata too: oidc-provider itself serves only /.well-known/openid-configuration.
    if (path === '/.well-known/oauth-authorization-server') req.url = '/.well-known/openid-configuration';
    handle(req, res);
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const resolveClient = options.clientIdMetadataDocuments
    ? (id: string) => fetchClientMetadataDocument(id, (fetched) => clientMetadataFetches.push(fetched))
    : undefined;
  provider = new Provider(url, await configuration(options, memoryAdapter(resolveClient)));
  provider.on('registration_create.success', (_ctx: unknown, client: { metadata(): object }) => {
    registrations.push({ ...client.metadata() });
  });
  provider.use(async (ctx, next) => {
    await next();
    const oidc = (ctx as KoaContextWithOIDC).oidc;
    if (oidc?.route !== 'revocation') return;
    const params = (oidc.params ?? {}) as Record<string, string | undefined>;
    revocations.push({
      token: params.token ?? '',
      tokenTypeHint: params.token_type_hint,
      clientId: oidc.client?.clientId,
      status: ctx.status,
    });
  });
  const live = provider;
  handle = provider.callback();

  return {
    url,
    authorizationEndpoint: `${url}/auth`,
    tokenEndpoint: `${url}/token`,
    revocationEndpoint: `${url}/token/revocation`,
    registrationEndpoint: `${url}/reg`,
    jwksUri: `${url}/jwks`,
    provider: live,
    requests,
    count: (path) => requests.filter((p) => p === path).length,
    revocations,
    registrations,
    clientMetadataFetches,
    failTokenEndpoint(mode) {
      failure = mode;
    },
    async refreshTokenActive(token) {
      const found = await live.RefreshToken.find(token);
      return found !== undefined && !found.isExpired && !found.consumed;
    },
    close: async () => {
      provider = undefined;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function failToken(req: IncomingMessage, res: ServerResponse, mode: TokenEndpointFailure): void {
  req.resume();
  if (mode === 'hang') return; // close() drops the connection
  res.writeHead(500, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: 'server_error', error_description: 'token endpoint failure (test)' }));
}

async function configuration(
  options: AuthorizationServerOptions,
  adapter: Configuration['adapter'],
): Promise<Configuration> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const key = { ...(await exportJWK(privateKey)), kid: `key-${randomUUID().slice(0, 8)}`, alg: 'RS256' };
  const scopes = options.scopes ?? ['mcp'];
  const accessTokenTTL = options.accessTokenTtlSec ?? 300;
  const refreshTokenTTL = options.refreshTokenTtlSec ?? 3600;
  const rotate = options.rotateRefreshTokens ?? true;
  const config: Configuration = {
    adapter,
    clients: (options.clients ?? []).map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method:
        c.tokenEndpointAuthMethod ?? (c.clientSecret ? 'client_secret_basic' : 'none'),
    })),
    jwks: { keys: [key] },
    cookies: { keys: [randomUUID()] },
    scopes: ['openid', 'offline_access', ...scopes],
    pkce: { required: () => true },
    responseTypes: ['code'],
    interactions: { url: interactionUrl, policy: alwaysConsentPolicy() },
    // Refresh tokens for every authorization code (not only with `offline_access`), living on their own.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => rotate,
    expiresWithSession: async () => false,
    // The account id is the user name typed on the login page.
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    discovery: options.clientIdMetadataDocuments ? { client_id_metadata_document_supported: true } : {},
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => undefined,
        // A refresh (or code exchange) without `resource` still gets a token for the granted resource.
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (
            !/^https?:\/\//.test(indicator) ||
            (options.resources && !options.resources.includes(indicator))
          ) {
            throw new errors.InvalidTarget(`no resource server ${indicator} at this issuer`);
          }
          return {
            scope: scopes.join(' '),
            audience: indicator,
            accessTokenTTL,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    ttl: {
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? accessTokenTTL,
      AuthorizationCode: 60,
      Grant: refreshTokenTTL,
      IdToken: 300,
      Interaction: 600,
      RefreshToken: refreshTokenTTL,
      Session: 3600,
    },
  };
  return options.configure ? options.configure(config) : config;
}
