import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { GatewayError, Identity, Logger } from '@switchyard/core';
import { attachSubjectToken, ClientDirectory, subjectTokenOf } from '@switchyard/core/listener';
import type { OAuthConfig } from '../config/auth-schema.js';
import { httpStatusOf } from '../listeners/http-errors.js';
import { GatewayReasons } from '../reasons.js';
import { IssuerKeys, IssuerUnavailable } from './issuer-keys.js';
import { OAuthVerifier, type TokenClaims } from './oauth-verifier.js';
import { ProtectedResource } from './protected-resource.js';

/** How a request was authenticated, or how to refuse it (status, headers and a JSON-RPC error). */
export type AuthOutcome =
  | {
      ok: true;
      identity: Identity;
      /** When the OAuth access token expires (ms since epoch): a WebSocket is closed then. */
      expiresAt?: number;
    }
  | {
      ok: false;
      /** `httpStatusOf(error)`, for callers that answer outside JSON-RPC (the admin listener, a WebSocket upgrade). */
      status: 401 | 403 | 503;
      /** `error.reason`: missing_token, invalid_token, unauthorized, insufficient_scope, issuer_unavailable. */
      reason: string;
      headers: Record<string, string>;
      error: GatewayError;
    };

/** A refusal: the error (its reason gives the status) and the challenge headers to send with it. */
function refused(error: GatewayError, headers: Record<string, string>): AuthOutcome {
  return {
    ok: false,
    status: httpStatusOf(error) as 401 | 403 | 503,
    reason: error.reason ?? 'unauthorized',
    headers,
    error,
  };
}

/**
 * Resolves the `Authorization` header of an HTTP or WebSocket request to an identity: a static client
 * token (ClientDirectory) first, then, when `auth.oauth` is set, a JWT access token from the issuer.
 */
export interface Authenticator {
  /** The identity of stdio sessions (and of tokenless requests where `anonymous` allows them). */
  readonly anonymous: Identity;
  /**
   * With `anonymous: false` a request without a token is refused (401 and the challenge) even where the
   * config's `anonymous` admits tokenless callers: the admin listener never takes the anonymous identity.
   */
  authenticate(authorization: string | undefined, options?: AuthenticateOptions): Promise<AuthOutcome>;
  /** Serves the RFC 9728 metadata when `req` asks for it (OAuth only); returns whether it did. */
  serveMetadata(req: IncomingMessage, res: ServerResponse, listenerPath: string): boolean;
  close(): void;
}

export interface AuthenticateOptions {
  /** Whether a tokenless request may be the anonymous identity where the config allows it (default true). */
  anonymous?: boolean;
}

/** Whether an `Authorization` header carries nothing: no header, or only whitespace. */
function tokenless(authorization: string | undefined): boolean {
  return authorization === undefined || authorization.trim() === '';
}

export interface AuthenticatorOptions {
  clients: ClientDirectory;
  /** Whether `anonymous` is configured: tokenless requests are then that identity instead of a 401. */
  anonymousAllowed: boolean;
  oauth?: OAuthConfig;
  logger: Logger;
}

/** Builds the gateway's authenticator; with `oauth`, starts discovering the issuer in the background. */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const { clients, oauth } = options;
  if (!oauth) return staticAuthenticator(clients);
  const keys = new IssuerKeys({
    issuer: oauth.issuer,
    jwksUri: oauth.jwksUri,
    cooldownMs: oauth.jwksCooldownMs,
    logger: options.logger,
  });
  const verifier = new OAuthVerifier(oauth, keys);
  const metadata = new ProtectedResource(oauth);
  const challengeOptions = {
    requiredScopes: [...metadata.requiredScopes],
    resourceMetadataUrl: metadata.metadataUrl,
  };
  keys.start();

  const verify = async (token: string): Promise<AuthOutcome> => {
    try {
      const info = await verifyBearerToken(`Bearer ${token}`, {
        verifier,
        ...challengeOptions,
        expectedResource: new URL(oauth.resource),
      });
      const identity = oauthIdentity(info.clientId, info.scopes, info.extra as unknown as TokenClaims, oauth);
      // Kept beside the identity (never on it) for RFC 8693 token exchange towards upstreams.
      attachSubjectToken(identity, token);
      return { ok: true, identity, expiresAt: (info.expiresAt ?? 0) * 1000 };
    } catch (error) {
      return refusal(error);
    }
  };

  const refusal = (error: unknown): AuthOutcome => {
    if (error instanceof IssuerUnavailable) {
      return refused(
        GatewayReasons.issuer_unavailable.error(`Service Unavailable: ${error.message}`, {
          retryAfterMs: error.retryAfterSec * 1000,
        }),
        { 'Retry-After': String(error.retryAfterSec) },
      );
    }
    const oauthError =
      error instanceof OAuthError
        ? error
        : new OAuthError(OAuthErrorCode.InvalidToken, 'the access token could not be checked');
    const answer = bearerAuthChallengeResponse(oauthError, challengeOptions);
    const scope = answer.status === 403;
    const message = scope
      ? `Forbidden: the access token lacks a required scope (${metadata.requiredScopes.join(' ')}): request it from the issuer`
      : `Unauthorized: ${oauthError.message}`;
    return refused(
      (scope ? GatewayReasons.insufficient_scope : GatewayReasons.invalid_token).error(message),
      { 'WWW-Authenticate': answer.headers.get('www-authenticate') ?? metadata.missingTokenChallenge() },
    );
  };

  return {
    anonymous: clients.anonymous,
    async authenticate(authorization, { anonymous = true } = {}) {
      if (authorization === undefined || tokenless(authorization)) {
        if (options.anonymousAllowed && anonymous) return { ok: true, identity: clients.anonymous };
        const message = `Unauthorized: this gateway needs an OAuth access token for ${oauth.resource} from ${oauth.issuer} (see ${metadata.metadataUrl}): send Authorization: Bearer <token>`;
        return refused(GatewayReasons.missing_token.error(message), {
          'WWW-Authenticate': metadata.missingTokenChallenge(),
        });
      }
      const token = /^Bearer[ \t]+(\S+)\s*$/i.exec(authorization)?.[1];
      if (!token) {
        return refusal(
          new OAuthError(
            OAuthErrorCode.InvalidToken,
            'malformed Authorization header: use Authorization: Bearer <token>',
          ),
        );
      }
      if (clients.enabled) {
        const known = clients.authenticate(authorization);
        if (known.ok) return known;
      }
      return verify(token);
    },
    serveMetadata: (req, res, listenerPath) => metadata.serve(req, res, listenerPath),
    close: () => keys.close(),
  };
}

/** Static client tokens only (no `auth.oauth`): the ClientDirectory's answer, shaped as an outcome. */
export function staticAuthenticator(clients: ClientDirectory): Authenticator {
  return {
    anonymous: clients.anonymous,
    async authenticate(authorization, { anonymous = true } = {}) {
      if (!anonymous && clients.enabled && tokenless(authorization)) {
        return refused(
          GatewayReasons.unauthorized.error(
            'Unauthorized: this endpoint needs a client token: send Authorization: Bearer <token>',
          ),
          { 'WWW-Authenticate': 'Bearer realm="switchyard"' },
        );
      }
      const auth = clients.authenticate(authorization);
      if (auth.ok) return auth;
      return refused(GatewayReasons.unauthorized.error(auth.message), {
        'WWW-Authenticate': auth.challenge,
      });
    },
    serveMetadata: () => false,
    close: () => {},
  };
}

/** Listeners take an Authenticator; embedders may still hand them a ClientDirectory. */
export function asAuthenticator(auth: Authenticator | ClientDirectory): Authenticator {
  return auth instanceof ClientDirectory ? staticAuthenticator(auth) : auth;
}

/**
 * A long-lived session keeps the identity object it was opened with; each later request of the same
 * OAuth client brings a fresh token, which the session's identity takes (token exchange must not use an
 * expired one). Only between two OAuth identities: a static client's identity object is shared by all
 * of its sessions and never holds a token.
 */
export function refreshSubjectToken(session: Identity, request: Identity): void {
  const token = subjectTokenOf(request);
  if (token !== undefined && session !== request && subjectTokenOf(session) !== undefined) {
    attachSubjectToken(session, token);
  }
}

/** The identity an access token names: the client claim, and groups from the groups claim and scopes. */
function oauthIdentity(id: string, scopes: string[], claims: TokenClaims, config: OAuthConfig): Identity {
  const groups = new Set(claims.groups);
  for (const scope of scopes) {
    // The scopes are the token's: `constructor` or `__proto__` maps to nothing, not to Object.prototype's.
    if (!Object.hasOwn(config.scopes.groups, scope)) continue;
    const mapped = config.scopes.groups[scope];
    for (const group of typeof mapped === 'string' ? [mapped] : (mapped ?? [])) groups.add(group);
  }
  return Object.freeze({ id, groups: Object.freeze([...groups]), anonymous: false });
}
