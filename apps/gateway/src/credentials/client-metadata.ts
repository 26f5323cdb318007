import type { OAuthClientMetadata } from '@modelcontextprotocol/client';

// What the gateway says about itself as an OAuth client of upstream authorization servers (DESIGN §14):
// where its pages are below `credentials.publicUrl`, its Client ID Metadata Document, and the metadata
// it registers dynamically where an authorization server supports neither a pre-registered id nor CIMD.

/** The gateway's OAuth client pages, relative to the path of `credentials.publicUrl`. */
export const OAUTH_PATHS = {
  /** The Client ID Metadata Document (its URL is the client_id, SEP-991). */
  clientMetadata: '/oauth/client.json',
  /** Where authorization servers send the person back (the redirect URI). */
  callback: '/oauth/callback',
  /** `<connect><ticket>`: the URL a person opens to connect an upstream (no gateway token needed). */
  connect: '/oauth/connect/',
} as const;

/** The name the gateway gives itself on consent screens. */
export const CLIENT_NAME = 'Switchyard';

/**
 * `path` below `publicUrl` (its path kept, a trailing slash, query and fragment dropped): `publicUrl`
 * https://mcp.example.com/gw and `/oauth/callback` give https://mcp.example.com/gw/oauth/callback.
 */
export function publicUrlFor(publicUrl: string, path: string): string {
  const url = new URL(publicUrl);
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  url.search = '';
  url.hash = '';
  return url.href;
}

/** `<publicUrl>/oauth/callback`: the one redirect URI the gateway registers and sends. */
export function redirectUri(publicUrl: string): string {
  return publicUrlFor(publicUrl, OAUTH_PATHS.callback);
}

/** `<publicUrl>/oauth/client.json`: the gateway's client_id where authorization servers accept CIMD. */
export function clientMetadataUrl(publicUrl: string): string {
  return publicUrlFor(publicUrl, OAUTH_PATHS.clientMetadata);
}

/**
 * The Client ID Metadata Document served at {@link clientMetadataUrl}: a public client (no secret, as
 * CIMD requires) using the authorization code grant with PKCE and refresh tokens.
 */
export function clientMetadataDocument(publicUrl: string): OAuthClientMetadata & { client_id: string } {
  return {
    client_id: clientMetadataUrl(publicUrl),
    client_name: CLIENT_NAME,
    redirect_uris: [redirectUri(publicUrl)],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/**
 * What the gateway registers by RFC 7591 dynamic registration: the document above without its client_id,
 * with the token endpoint authentication the authorization server accepts (`none` unless it accepts no
 * public clients) and the scope it will ask for (some servers allow only registered scopes).
 */
export function registrationMetadata(
  publicUrl: string,
  tokenEndpointAuthMethod: string,
  scope?: string,
): OAuthClientMetadata {
  const { client_id: _, ...document } = clientMetadataDocument(publicUrl);
  return {
    ...document,
    // The gateway is a web application whatever its host; never left for a server to guess from a
    // loopback redirect URI (which some take for a native app).
    application_type: 'web',
    token_endpoint_auth_method: tokenEndpointAuthMethod,
    ...(scope ? { scope } : {}),
  };
}
