import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import Provider, { type Configuration, errors } from 'oidc-provider';

// A real OAuth 2.1 / OpenID authorization server for tests: oidc-provider in-process on a loopback port,
// issuing JWT access tokens for a resource (RFC 8707 resource indicators) through the client credentials
// grant. Reusable: clients, resource servers, extra claims, key rotation, and any other provider setting.

export interface IssuerClient {
  clientId: string;
  clientSecret: string;
  /** The scopes the client may ask for (space-separated). */
  scope?: string;
  /** Claims added to every access token issued to this client (e.g. `{ groups: ['readers'] }`). */
  claims?: Record<string, unknown>;
  /** Default: client_credentials only. */
  grantTypes?: string[];
}

export interface IssuerOptions {
  /** The port to listen on (default: an ephemeral one). A fixed port lets a test start it late. */
  port?: number;
  clients?: IssuerClient[];
  /**
   * Resource servers the issuer mints tokens for: resource indicator → scopes it accepts and token
   * lifetime. Omitted: any resource indicator is accepted, with every scope a client may ask for.
   */
  resources?: Record<string, { scope: string; ttlSec?: number }>;
  /** Access token lifetime when the resource entry names none (default 300 s). */
  accessTokenTtlSec?: number;
  /**
   * Anything else oidc-provider accepts, applied over the harness's configuration, e.g.
   * `(c) => ({ ...c, features: { ...c.features, introspection: { enabled: true } } })`.
   */
  configure?: (config: Configuration) => Configuration;
  /** Runs on every provider instance (again after a key rotation), e.g. to register a grant type. */
  setup?: (provider: Provider) => void;
}

export interface TestIssuer {
  /** The issuer identifier (no trailing slash), e.g. http://127.0.0.1:41234. */
  url: string;
  port: number;
  /** `${url}/jwks` and `${url}/token`. */
  jwksUri: string;
  tokenEndpoint: string;
  /** The current provider instance (it is replaced by rotateKeys). */
  readonly provider: Provider;
  /** A real token from the token endpoint (client credentials; client_secret_basic). */
  clientCredentialsToken(request: {
    clientId: string;
    clientSecret?: string;
    scope?: string;
    resource?: string;
  }): Promise<{ status: number; accessToken?: string; body: Record<string, unknown> }>;
  /**
   * Signs any claims as this issuer would (its current key, or `foreign: true` for a key it never
   * published), for tokens the grant cannot produce: expired, not yet valid, odd claims.
   */
  mint(claims: JWTPayload, options?: { foreign?: boolean; alg?: string; typ?: string }): Promise<string>;
  /** Publishes a new signing key and signs with it from now on; the old one stays in the JWKS. */
  rotateKeys(): Promise<void>;
  /** Paths requested so far (e.g. to count JWKS fetches). */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

/** Starts an issuer on 127.0.0.1. Always `close()` it (e.g. in a Cleanup task). */
export async function startIssuer(options: IssuerOptions = {}): Promise<TestIssuer> {
  const requests: string[] = [];
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => {
    requests.push(req.url ?? '/');
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const keys = [await signingKey()];
  const clients = options.clients ?? [];
  const build = () => {
    const instance = new Provider(url, configuration(options, clients, keys));
    options.setup?.(instance);
    handler = instance.callback();
    return instance;
  };
  let provider = build();

  return {
    url,
    port,
    jwksUri: `${url}/jwks`,
    tokenEndpoint: `${url}/token`,
    get provider() {
      return provider;
    },
    requests,
    async clientCredentialsToken(request) {
      const client = clients.find((c) => c.clientId === request.clientId);
      const secret = request.clientSecret ?? client?.clientSecret ?? '';
      const body = new URLSearchParams({ grant_type: 'client_credentials' });
      if (request.scope) body.set('scope', request.scope);
      if (request.resource) body.set('resource', request.resource);
      const res = await fetch(`${url}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(request.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body,
      });
      const json = (await res.json()) as Record<string, unknown>;
      return { status: res.status, accessToken: json.access_token as string | undefined, body: json };
    },
    async mint(claims, mintOptions = {}) {
      const key = mintOptions.foreign ? await signingKey() : keys[0]!;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: url, iat: now, exp: now + 300, jti: randomUUID(), ...claims })
        .setProtectedHeader({
          alg: mintOptions.alg ?? 'RS256',
          kid: key.kid,
          typ: mintOptions.typ ?? 'at+jwt',
        })
        .sign(key.privateKey);
    },
    async rotateKeys() {
      keys.unshift(await signingKey());
      provider = build();
    },
    close: async () => {
      handler = undefined;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

interface SigningKey {
  kid: string;
  jwk: JWK;
  privateKey: CryptoKey;
}

async function signingKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `key-${randomUUID().slice(0, 8)}`;
  return { kid, privateKey, jwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' } };
}

function configuration(options: IssuerOptions, clients: IssuerClient[], keys: SigningKey[]): Configuration {
  const allScopes = [...new Set(clients.flatMap((c) => (c.scope ?? '').split(' ').filter(Boolean)))];
  const config: Configuration = {
    clients: clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      grant_types: c.grantTypes ?? ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: c.scope,
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    // The first key signs; the others stay published so tokens they signed still verify.
    jwks: { keys: keys.map((k) => k.jwk) },
    scopes: allScopes,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          const entry = options.resources ? options.resources[indicator] : { scope: allScopes.join(' ') };
          if (!entry) throw new errors.InvalidTarget(`no resource server ${indicator} at this issuer`);
          return {
            scope: entry.scope,
            audience: indicator,
            accessTokenFormat: 'jwt',
            accessTokenTTL:
              ('ttlSec' in entry ? entry.ttlSec : undefined) ?? options.accessTokenTtlSec ?? 300,
          };
        },
      },
    },
    ttl: { ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 300 },
    extraTokenClaims: (_ctx, token) => clients.find((c) => c.clientId === token.clientId)?.claims,
  };
  return options.configure ? options.configure(config) : config;
}
