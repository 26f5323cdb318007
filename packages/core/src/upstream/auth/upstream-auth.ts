import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { UpstreamAuthConfig, UpstreamConfig } from '../../config.js';
import type { Identity } from '../../context.js';
import { ErrorCode, GatewayError } from '../../errors.js';
import { subjectTokenOf } from '../../identity-credential.js';
import { AuthorizationServer } from './authorization-server.js';
import type { CachedToken } from './cached-token.js';
import { clientCredentialsToken } from './client-credentials.js';
import { credentialsError } from './credentials-error.js';
import { TokenExchangeGrant } from './token-exchange.js';

/** One HTTP request a transport makes to the upstream, as its credentials see it. */
export interface AuthorizedRequest<T> {
  /** Sends the request with this `Authorization` header value. */
  send(authorization: string): Promise<T>;
  status(response: T): number;
  /** Drops a refused response (frees its socket). */
  discard(response: T): void;
}

/** Where a transport gets the `Authorization` of each HTTP request it makes to an upstream. */
export interface UpstreamCredentials {
  /**
   * Sends `request` with the credentials for `message`: the caller's when the message is a request sent
   * on a caller's behalf, else the gateway's own (the handshake, streams, closing the session). On HTTP
   * 401 it drops the refused token, gets a fresh one and sends once more; a second 401 rejects with an
   * `upstream_unavailable` GatewayError.
   */
  authorize<T>(message: JSONRPCMessage | undefined, request: AuthorizedRequest<T>): Promise<T>;
}

/** Which caller a request message is sent for (undefined: the gateway's own). */
export type CallerOf = (message: JSONRPCMessage) => Identity | undefined;

/** Credentials one connection's transport binds to: the gateway's own (`UpstreamAuth`) or one person's. */
export interface CredentialSource {
  /** The credentials of one connection's transport; `callerOf` names the caller of each request message. */
  bind(callerOf: CallerOf): UpstreamCredentials;
}

/**
 * The gateway's own credentials for one upstream (`mcpServers.*.auth`), kept across reconnects: the
 * client-credentials token, and with `tokenExchange` a token per caller exchanged from the caller's own
 * OAuth token. The caller's token itself never goes upstream.
 */
export class UpstreamAuth implements CredentialSource {
  readonly #upstream: string;
  readonly #own: CachedToken;
  readonly #exchange: TokenExchangeGrant | undefined;

  constructor(upstream: string, config: UpstreamAuthConfig, now?: () => number) {
    this.#upstream = upstream;
    const server = new AuthorizationServer(upstream, config.issuer);
    this.#own = clientCredentialsToken(server, config, now);
    this.#exchange =
      config.kind === 'tokenExchange' ? new TokenExchangeGrant(server, config, now) : undefined;
  }

  /** The credentials of one connection's transport; `callerOf` names the caller of each request message. */
  bind(callerOf: CallerOf): UpstreamCredentials {
    return {
      authorize: (message, request) =>
        this.#authorize(message === undefined ? undefined : callerOf(message), request),
    };
  }

  /**
   * The token for a request on behalf of `caller` (undefined: the gateway's own). With token exchange, a
   * caller who did not sign in through the gateway's OAuth issuer (a static token, stdio, anonymous) has
   * no token to exchange: refused with `oauth_identity_required` rather than sent as the gateway.
   */
  tokenFor(caller: Identity | undefined): CachedToken {
    if (this.#exchange === undefined || caller === undefined) return this.#own;
    const subjectToken = subjectTokenOf(caller);
    if (subjectToken === undefined) {
      throw new GatewayError(
        ErrorCode.Forbidden,
        `Upstream '${this.#upstream}' is called on behalf of each caller (OAuth token exchange), and '${caller.id}' did not sign in through the gateway's OAuth issuer (static token, stdio or anonymous). Sign in with OAuth, or ask the operator for another way to reach this server.`,
        { reason: 'oauth_identity_required', upstream: this.#upstream },
      );
    }
    return this.#exchange.tokenOf(caller, subjectToken);
  }

  async #authorize<T>(caller: Identity | undefined, request: AuthorizedRequest<T>): Promise<T> {
    return sendAuthorized(this.#upstream, this.tokenFor(caller), request);
  }
}

/**
 * Sends `request` with `token`; on HTTP 401 drops it, gets a fresh one and sends once more (one refresh
 * per refused request); a second 401 rejects with an `upstream_unavailable` GatewayError.
 */
export async function sendAuthorized<T>(
  upstream: string,
  token: CachedToken,
  request: AuthorizedRequest<T>,
): Promise<T> {
  const first = await token.get();
  const answer = await request.send(`Bearer ${first}`);
  if (request.status(answer) !== 401) return answer;
  request.discard(answer);
  token.refused(first);
  const retried = await request.send(`Bearer ${await token.get()}`);
  if (request.status(retried) !== 401) return retried;
  request.discard(retried);
  throw credentialsError(
    upstream,
    "it refused the gateway's credentials (HTTP 401) even with a freshly issued token",
    'the scope, resource and audience the issuer puts in its tokens',
  );
}

/**
 * The gateway's own credentials an upstream's config asks for (`auth` of a remote upstream), if any. A
 * personal upstream (`auth.user`) has none: each person's connection brings its own (PersonalAuth).
 */
export function upstreamAuthOf(config: UpstreamConfig): UpstreamAuth | undefined {
  const auth = config.transport.kind === 'stdio' ? undefined : config.transport.auth;
  return auth === undefined || auth.kind === 'user' ? undefined : new UpstreamAuth(config.name, auth);
}

/** Whether the upstream authorizes each person with their own OAuth token (`auth.user`, DESIGN §14). */
export function isPersonal(config: UpstreamConfig): boolean {
  return config.transport.kind === 'http' && config.transport.auth?.kind === 'user';
}
