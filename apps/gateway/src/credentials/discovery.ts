import {
  type AuthorizationServerMetadata,
  checkResourceAllowed,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  type FetchLike,
  IssuerMismatchError,
  isHttpsUrl,
  LATEST_PROTOCOL_VERSION,
  type OAuthClientInformationMixed,
  type OAuthProtectedResourceMetadata,
  resourceUrlFromServerUrl,
} from '@modelcontextprotocol/client';
import { type Logger, MemoryStore, type Store, silentLogger } from '@switchyard/core';
import { clientMetadataUrl, redirectUri } from './client-metadata.js';
import { ClientRegistrations } from './client-registrations.js';
import { UserOAuthDiscoveryError } from './discovery-error.js';
import { boundedFetch, describeError, isUnreachable } from './oauth-fetch.js';
import type { UpstreamOAuthServer, UpstreamOAuthServers } from './types.js';

/** An upstream whose people connect their own accounts: its MCP URL and `mcpServers.<name>.auth.user`. */
export interface UserOAuthUpstream {
  url: string;
  user: { clientId?: string; clientSecret?: string; scope?: string };
}

export interface OAuthServerDirectoryOptions {
  /** The upstream of that name with `auth.user`, or undefined (read at each discovery, so a reload counts after `forget`). */
  upstream: (name: string) => UserOAuthUpstream | undefined;
  /** `credentials.publicUrl`: where authorization servers send people back, and the CIMD's URL. */
  publicUrl: string;
  /** `credentials.key`: seals registrations (they may hold a client secret) in the store. */
  key: string | undefined;
  /** `credentials.previousKeys`: registrations they sealed still open, and are sealed again under `key`. */
  previousKeys?: readonly string[];
  /**
   * The shared store, so replicas reuse one registration per (upstream, issuer); memory without one. Keys
   * are `oauth-registration:<hash>`: pass the store scoped as the vault's (`credentials:`).
   */
  store?: Store;
  /** Every discovery and registration request goes through it (default: global fetch). */
  fetch?: FetchLike;
  /** Bound on each request to the upstream and its authorization server (default 10 s). */
  timeoutMs?: number;
  logger?: Logger;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The OAuth side of each `auth.user` upstream, discovered as the MCP authorization spec says and cached
 * until `forget`: an unauthenticated probe of the MCP URL for its 401 challenge (`resource_metadata`,
 * `scope`), else the well-known URLs; the protected resource metadata (RFC 9728), whose `resource` is the
 * RFC 8707 indicator sent verbatim; its first authorization server's metadata (RFC 8414 / OIDC, issuer
 * checked); then the gateway's client there: the configured `clientId`, else the Client ID Metadata
 * Document URL where the server accepts CIMD and `publicUrl` is https, else RFC 7591 dynamic
 * registration, kept per (upstream, issuer, redirect URI) in the store so replicas share one.
 * Concurrent first callers share one discovery; a failed one is not cached.
 */
export class OAuthServerDirectory implements UpstreamOAuthServers {
  readonly #options: OAuthServerDirectoryOptions;
  readonly #fetch: FetchLike;
  readonly #registrations: ClientRegistrations;
  readonly #logger: Logger;
  readonly #cache = new Map<string, Promise<UpstreamOAuthServer>>();

  constructor(options: OAuthServerDirectoryOptions) {
    this.#options = options;
    this.#fetch = boundedFetch(options.fetch ?? fetch, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.#logger = options.logger ?? silentLogger;
    this.#registrations = new ClientRegistrations({
      publicUrl: options.publicUrl,
      key: options.key,
      previousKeys: options.previousKeys,
      store: options.store ?? new MemoryStore(),
      fetch: this.#fetch,
      logger: this.#logger,
    });
  }

  of(upstream: string): Promise<UpstreamOAuthServer> {
    const cached = this.#cache.get(upstream);
    if (cached) return cached;
    const discovery = this.#discover(upstream);
    this.#cache.set(upstream, discovery);
    discovery.catch(() => {
      if (this.#cache.get(upstream) === discovery) this.#cache.delete(upstream);
    });
    return discovery;
  }

  /**
   * Drops what was discovered of `upstream` (a config reload). With `dropRegistration`, also the
   * dynamic registration kept in the store, for when the authorization server no longer knows it
   * (`invalid_client`); otherwise it is kept, as grants obtained under it still refresh with it.
   */
  forget(upstream: string, options: { dropRegistration?: boolean } = {}): void {
    const cached = this.#cache.get(upstream);
    this.#cache.delete(upstream);
    if (!options.dropRegistration || !cached) return;
    cached
      .then(async (server) => {
        if (server.registration !== 'dynamic') return;
        // Only the registration this replica used: another may have stored a new one meanwhile.
        await this.#registrations.drop(
          upstream,
          server.metadata.issuer,
          server.redirectUri,
          server.client.client_id,
        );
      })
      .catch((error: unknown) =>
        this.#logger.warn('dropping a stored OAuth client registration failed', {
          upstream,
          error: String(error),
        }),
      );
  }

  async #discover(name: string): Promise<UpstreamOAuthServer> {
    const upstream = this.#options.upstream(name);
    if (!upstream) {
      throw new UserOAuthDiscoveryError(
        name,
        'configuration',
        'no such upstream with auth.user is configured',
      );
    }
    try {
      const challenge = await this.#probe(name, upstream.url);
      const resourceMetadata = await this.#resourceMetadata(
        name,
        upstream.url,
        challenge.resourceMetadataUrl,
      );
      const authorizationServerUrl = resourceMetadata.authorization_servers?.[0];
      if (!authorizationServerUrl) {
        throw new UserOAuthDiscoveryError(
          name,
          'protected resource metadata',
          'it names no authorization server (authorization_servers)',
        );
      }
      const metadata = await this.#serverMetadata(name, authorizationServerUrl);
      const scope = withOfflineAccess(
        upstream.user.scope ?? challenge.scope ?? resourceMetadata.scopes_supported?.join(' '),
        metadata,
      );
      const { client, registration } = await this.#client(name, upstream, metadata, scope);
      const server: UpstreamOAuthServer = {
        upstream: name,
        resource: resourceMetadata.resource,
        authorizationServerUrl,
        metadata,
        client,
        redirectUri: redirectUri(this.#options.publicUrl),
        registration,
        ...(scope ? { scope } : {}),
      };
      this.#logger.info('discovered the OAuth side of an upstream', {
        upstream: name,
        issuer: metadata.issuer,
        registration,
      });
      return server;
    } catch (error) {
      const failure =
        error instanceof UserOAuthDiscoveryError
          ? error
          : new UserOAuthDiscoveryError(name, 'configuration', describeError(error), isUnreachable(error));
      this.#logger.warn('OAuth discovery of an upstream failed', { upstream: name, error: failure.message });
      throw failure;
    }
  }

  /**
   * An unauthenticated `initialize` POST to the MCP URL: a protected server answers 401 with a
   * `WWW-Authenticate` challenge naming its metadata (and maybe the scope it wants).
   */
  async #probe(name: string, url: string): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: LATEST_PROTOCOL_VERSION,
            capabilities: {},
            clientInfo: { name: 'switchyard-oauth-probe', version: '1' },
          },
        }),
      });
    } catch (error) {
      throw new UserOAuthDiscoveryError(name, 'probe', describeError(error), true);
    }
    await response.body?.cancel().catch(() => {});
    if (response.status !== 401) return {};
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  }

  async #resourceMetadata(
    name: string,
    url: string,
    resourceMetadataUrl: URL | undefined,
  ): Promise<OAuthProtectedResourceMetadata> {
    let metadata: OAuthProtectedResourceMetadata;
    try {
      metadata = await discoverOAuthProtectedResourceMetadata(
        url,
        resourceMetadataUrl ? { resourceMetadataUrl } : {},
        this.#fetch,
      );
    } catch (error) {
      throw new UserOAuthDiscoveryError(
        name,
        'protected resource metadata',
        describeError(error),
        isUnreachable(error),
      );
    }
    // What selectResourceURL checks for a provider without its own rule: the document must describe
    // this server (same origin, a path it lies under), else a token for another resource would be asked.
    if (
      !checkResourceAllowed({
        requestedResource: resourceUrlFromServerUrl(url),
        configuredResource: metadata.resource,
      })
    ) {
      throw new UserOAuthDiscoveryError(
        name,
        'protected resource metadata',
        `its resource ${JSON.stringify(metadata.resource)} does not cover the upstream's URL`,
      );
    }
    return metadata;
  }

  async #serverMetadata(name: string, authorizationServerUrl: string): Promise<AuthorizationServerMetadata> {
    let metadata: AuthorizationServerMetadata | undefined;
    try {
      metadata = await discoverAuthorizationServerMetadata(authorizationServerUrl, { fetchFn: this.#fetch });
    } catch (error) {
      const detail =
        error instanceof IssuerMismatchError
          ? `its issuer ${JSON.stringify(error.received)} is not ${JSON.stringify(error.expected)} (RFC 8414 §3.3)`
          : describeError(error);
      throw new UserOAuthDiscoveryError(name, 'authorization server metadata', detail, isUnreachable(error));
    }
    const step = 'authorization server metadata';
    if (!metadata) {
      throw new UserOAuthDiscoveryError(
        name,
        step,
        `${authorizationServerUrl} publishes none (RFC 8414 or OIDC)`,
      );
    }
    if (!metadata.response_types_supported.includes('code')) {
      throw new UserOAuthDiscoveryError(name, step, 'it does not support the authorization code flow');
    }
    // The MCP authorization spec: without code_challenge_methods_supported there is no PKCE; refuse.
    if (!metadata.code_challenge_methods_supported?.includes('S256')) {
      throw new UserOAuthDiscoveryError(name, step, 'it does not advertise PKCE with S256');
    }
    return metadata;
  }

  /** The gateway's client at that server, in the MCP spec's order: configured, CIMD, dynamic registration. */
  async #client(
    name: string,
    upstream: UserOAuthUpstream,
    metadata: AuthorizationServerMetadata,
    scope: string | undefined,
  ): Promise<{ client: OAuthClientInformationMixed; registration: UpstreamOAuthServer['registration'] }> {
    const { clientId, clientSecret } = upstream.user;
    if (clientId) {
      return {
        client: { client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) },
        registration: 'configured',
      };
    }
    const documentUrl = clientMetadataUrl(this.#options.publicUrl);
    if (metadata.client_id_metadata_document_supported === true && isHttpsUrl(documentUrl)) {
      return { client: { client_id: documentUrl }, registration: 'metadata-document' };
    }
    return { client: await this.#registrations.of(name, metadata, scope), registration: 'dynamic' };
  }
}

/**
 * `scope` plus `offline_access` where the server lists it (as the SDK's own flow does): some servers issue
 * refresh tokens only for it, and without one the person is asked again at every expiry.
 */
function withOfflineAccess(
  scope: string | undefined,
  metadata: AuthorizationServerMetadata,
): string | undefined {
  if (!scope || !metadata.scopes_supported?.includes('offline_access')) return scope;
  return scope.split(' ').includes('offline_access') ? scope : `${scope} offline_access`;
}
