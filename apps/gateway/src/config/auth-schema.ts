import { z } from 'zod';

/** JWS algorithms accepted by default: asymmetric only (a JWKS publishes public keys; `none` and HS* never). */
export const DEFAULT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An absolute URL without a fragment; https unless the host is loopback (local testing). */
const secureUrl = (what: string) =>
  z
    .string()
    .refine((u) => URL.canParse(u), 'must be an absolute URL')
    .refine((u) => !URL.canParse(u) || new URL(u).hash === '', `${what} must not have a #fragment`)
    .refine(
      (u) => !URL.canParse(u) || new URL(u).protocol === 'https:' || LOOPBACK.has(new URL(u).hostname),
      `${what} must use https: (http: is accepted only for localhost, 127.0.0.1 and [::1])`,
    );

const claimName = z.string().min(1, 'must name a claim');

/**
 * `auth.oauth`: the gateway as an OAuth 2.1 resource server (DESIGN §8 "OAuth identities"). Access tokens
 * are JWTs from `issuer`, for the audience `resource`, checked against the issuer's JWKS.
 */
export const oauthSchema = z.strictObject({
  /** The authorization server; its metadata (RFC 8414 / OpenID discovery) names the JWKS. */
  issuer: secureUrl('the issuer').refine(
    (u) => !URL.canParse(u) || new URL(u).search === '',
    'the issuer must not have a ?query',
  ),
  /** This gateway's canonical URL as clients reach it: tokens must carry it as their audience (RFC 8707). */
  resource: secureUrl('the resource'),
  /** The issuer's JWKS, when it is not (or should not be) found through the issuer's metadata. */
  jwksUri: secureUrl('jwksUri').optional(),
  /** The claim whose value is the caller's identity id. */
  clientClaim: claimName.default('sub'),
  /** The claim (a string or an array of strings) whose values become the caller's groups. */
  groupsClaim: claimName.optional(),
  scopes: z
    .strictObject({
      /** Scopes every token must have; without them the answer is 403 insufficient_scope. */
      required: z.array(z.string().regex(/^\S+$/, 'a scope has no whitespace')).default([]),
      /** scope → group (or groups): a token with the scope puts its caller in the group. */
      groups: z
        .record(
          z.string().regex(/^\S+$/, 'a scope has no whitespace'),
          z
            .string()
            .min(1)
            .or(z.array(z.string().min(1))),
        )
        .default({}),
    })
    .default({ required: [], groups: {} }),
  /** JWS algorithms accepted in access tokens. */
  algorithms: z
    .array(
      z.enum(DEFAULT_ALGORITHMS, {
        error: `must be an asymmetric JWS algorithm: ${DEFAULT_ALGORITHMS.join(', ')}`,
      }),
    )
    .min(1)
    .default([...DEFAULT_ALGORITHMS]),
  /** Clock skew allowed when checking `exp` and `nbf`, in seconds. */
  clockToleranceSec: z.number().int().min(0).max(300).default(30),
  /** After fetching the JWKS, how long a token with an unknown key id waits before it can cause a refetch. */
  jwksCooldownMs: z.number().int().min(0).max(3_600_000).default(30_000),
});

export const authSchema = z.strictObject({ oauth: oauthSchema.optional() });

export type OAuthConfig = z.infer<typeof oauthSchema>;
export type AuthConfig = z.infer<typeof authSchema>;
