import type { AuthorizationServerMetadata, OAuthClientInformationMixed } from '@modelcontextprotocol/client';

/**
 * One person's grant at one upstream's authorization server, as the vault keeps it (sealed). Never
 * logged, audited, shown or sent anywhere but that upstream and its authorization server.
 */
export interface StoredGrant {
  accessToken: string;
  refreshToken?: string;
  /** When the access token expires (ms since epoch), when the server said. */
  expiresAt?: number;
  scope?: string;
  /** The authorization server that issued it (its `issuer`). */
  issuer: string;
  /** The client id the gateway used there (refresh and revocation need the same one). */
  clientId: string;
  /** When it was obtained (ms since epoch). */
  obtainedAt: number;
  /**
   * True when this access token came from a refresh made because the upstream refused the previous one:
   * if the upstream refuses this one too (soon after), a refresh does not cure it and the grant is dropped.
   */
  afterRefusal?: boolean;
}

/**
 * What the gateway knows of one upstream's OAuth side, discovered once (401 → protected resource metadata
 * → authorization server metadata) and registered (pre-registered id, Client ID Metadata Document, or
 * dynamic registration).
 */
export interface UpstreamOAuthServer {
  upstream: string;
  /** The RFC 8707 resource indicator to send (the protected resource metadata's `resource`, verbatim). */
  resource: string | undefined;
  authorizationServerUrl: string;
  metadata: AuthorizationServerMetadata;
  /** The gateway's client at that server (client_secret only when it has one). */
  client: OAuthClientInformationMixed;
  /** `<publicUrl>/oauth/callback`. */
  redirectUri: string;
  /**
   * The scope to ask for: the config's, else the 401 challenge's `scope`, else the protected resource
   * metadata's `scopes_supported`.
   */
  scope?: string;
  /**
   * How `client` was obtained: the config's `clientId`, the gateway's Client ID Metadata Document URL, or
   * RFC 7591 dynamic registration (kept in the store; `forget(upstream, { dropRegistration: true })`
   * drops it when the server answers `invalid_client`).
   */
  registration?: 'configured' | 'metadata-document' | 'dynamic';
}

/** Discovers (once, then cached; again after `forget`) the OAuth side of an upstream. */
export interface UpstreamOAuthServers {
  of(upstream: string): Promise<UpstreamOAuthServer>;
  /** Drops what was discovered (a reload); with `dropRegistration`, a stored dynamic registration too. */
  forget(upstream: string, options?: { dropRegistration?: boolean }): void;
}
