import {
  type AuthInfo,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { type JWTPayload, jwtVerify } from 'jose';
import type { OAuthConfig } from '../config/auth-schema.js';
import { type IssuerKeys, IssuerUnavailable } from './issuer-keys.js';

/** What the verifier adds to AuthInfo.extra: the groups the token's claim names. */
export interface TokenClaims {
  groups: string[];
}

/**
 * Validates JWT access tokens locally with jose: signature against the issuer's JWKS, the algorithm
 * allow-list, `iss`, `aud` = this gateway's resource (RFC 8707), `exp`/`nbf` with the configured clock
 * skew. Errors are OAuthErrors whose messages say what is wrong and never contain the token.
 */
export class OAuthVerifier implements OAuthTokenVerifier {
  readonly #config: OAuthConfig;
  readonly #keys: IssuerKeys;
  readonly #audiences: string[];
  readonly #resource: URL;

  constructor(config: OAuthConfig, keys: IssuerKeys) {
    this.#config = config;
    this.#keys = keys;
    this.#resource = new URL(config.resource);
    // `https://mcp.example.com` and `https://mcp.example.com/` name the same resource; clients send either.
    this.#audiences = [
      ...new Set([config.resource, this.#resource.href, config.resource.replace(/\/$/, '')]),
    ];
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const getKey = await this.#keys.keys();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, getKey, {
        issuer: this.#keys.issuer,
        audience: this.#audiences,
        algorithms: this.#config.algorithms,
        clockTolerance: this.#config.clockToleranceSec,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof IssuerUnavailable) throw error;
      throw new OAuthError(OAuthErrorCode.InvalidToken, this.#explain(error));
    }
    const clientId = payload[this.#config.clientClaim];
    if (typeof clientId !== 'string' || clientId.length === 0) {
      throw new OAuthError(
        OAuthErrorCode.InvalidToken,
        `the access token has no '${this.#config.clientClaim}' claim to name its client`,
      );
    }
    const extra: TokenClaims = { groups: this.#claimGroups(payload) };
    return {
      token,
      clientId,
      scopes: scopesOf(payload),
      // jose has checked `exp` with the clock skew allowed; the SDK compares expiresAt with now, without it.
      expiresAt: (payload.exp as number) + this.#config.clockToleranceSec,
      resource: this.#resource,
      extra: { ...extra },
    };
  }

  #claimGroups(payload: JWTPayload): string[] {
    const claim = this.#config.groupsClaim;
    if (claim === undefined) return [];
    const value = payload[claim];
    if (typeof value === 'string') return value.length > 0 ? [value] : [];
    return Array.isArray(value)
      ? value.filter((g): g is string => typeof g === 'string' && g.length > 0)
      : [];
  }

  #explain(error: unknown): string {
    const { code, claim } = (error ?? {}) as { code?: string; claim?: string };
    switch (code) {
      case 'ERR_JWT_EXPIRED':
        return 'the access token has expired: get a new one from the issuer';
      case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
        if (claim === 'aud') {
          return `the access token was issued for another resource: request it with resource=${this.#config.resource}`;
        }
        if (claim === 'iss') return `the access token was not issued by ${this.#keys.issuer}`;
        if (claim === 'nbf') return 'the access token is not valid yet (nbf is in the future)';
        if (claim === 'exp') return 'the access token has no expiry (exp)';
        return `the access token has an invalid '${claim ?? '?'}' claim`;
      case 'ERR_JWKS_NO_MATCHING_KEY':
        return 'the access token is signed with a key the issuer does not publish';
      case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
        return "the access token's signature does not verify against the issuer's keys";
      case 'ERR_JOSE_ALG_NOT_ALLOWED':
        return 'the access token is signed with an algorithm this gateway does not accept';
      default:
        return 'the bearer token is neither a configured client token nor a valid JWT access token';
    }
  }
}

/** RFC 9068 `scope` (space-separated); some issuers use `scp` (a string or an array). */
function scopesOf(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  const list = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  return list.filter((s): s is string => typeof s === 'string' && s.length > 0);
}
