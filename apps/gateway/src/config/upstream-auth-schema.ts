import type { PersonalAuthConfig, UpstreamAuthConfig } from '@switchyard/core';
import { z } from 'zod';
import { oauthSchema } from './auth-schema.js';
import { type ConfigIssue, joinPath } from './expand.js';

/** The gateway's OAuth client at the upstream's authorization server. */
const oauthClient = z.strictObject({
  /** The authorization server (https, or http on loopback); its token endpoint comes from its metadata. */
  issuer: oauthSchema.shape.issuer,
  clientId: z.string().min(1, 'must be a non-empty client id'),
  clientSecret: z.string().min(1, 'must be a non-empty secret (is the variable it reads set?)'),
  /** Space-separated scopes to ask for. */
  scope: z.string().min(1).optional(),
  /** RFC 8707 resource indicator; default the upstream's URL; false sends none (e.g. Entra ID v2). */
  resource: z
    .string()
    .refine((u) => URL.canParse(u), 'must be an absolute URL (or false to send none)')
    .or(z.literal(false))
    .optional(),
  /** An `audience` parameter, for issuers that name the target that way (RFC 8693, Auth0). */
  audience: z.string().min(1).optional(),
});

/**
 * `auth.user` (DESIGN §14): each person connects their own account at the upstream's authorization
 * server, found by discovery. Every key is optional: without `clientId` the gateway registers itself
 * (Client ID Metadata Document, else dynamic registration).
 */
const personalClient = z.strictObject({
  /** A client id registered at the upstream's authorization server for `<publicUrl>/oauth/callback`. */
  clientId: z.string().min(1, 'must be a non-empty client id').optional(),
  clientSecret: z.string().min(1, 'must be a non-empty secret (is the variable it reads set?)').optional(),
  /** Space-separated scopes to ask each person for (default: what the server's metadata lists). */
  scope: z.string().min(1).optional(),
});

/**
 * `mcpServers.*.auth` of a remote server, exactly one of: `clientCredentials` (the gateway's own OAuth
 * client credentials), `tokenExchange` (RFC 8693, on behalf of each caller) or `user` (each person's own
 * authorization, DESIGN §14).
 */
export const upstreamAuthSchema = z
  .strictObject({
    clientCredentials: oauthClient.optional(),
    tokenExchange: oauthClient.optional(),
    user: personalClient.optional(),
  })
  .refine(
    (auth) =>
      [auth.clientCredentials, auth.tokenExchange, auth.user].filter((a) => a !== undefined).length === 1,
    'give exactly one of "clientCredentials", "tokenExchange" or "user"',
  );

export type RawUpstreamAuth = z.infer<typeof upstreamAuthSchema>;

/**
 * `auth.user`: each person's own requests need their own HTTP requests (Streamable HTTP), a prefix to
 * route by before anyone has connected, and no static `Authorization` header beside the person's token.
 */
function resolvePersonalAuth(
  user: NonNullable<RawUpstreamAuth['user']>,
  server: { headers: Record<string, string>; prefix?: boolean; required?: boolean },
  kind: 'http' | 'sse' | 'ws',
  at: string,
  issues: ConfigIssue[],
): PersonalAuthConfig {
  const path = joinPath(joinPath(at, 'auth'), 'user');
  if (kind !== 'http') {
    issues.push({
      path,
      message: `each person's own authorization needs a Streamable HTTP upstream, not ${kind === 'ws' ? 'WebSocket' : 'SSE'}`,
    });
  }
  if (Object.keys(server.headers).some((name) => name.toLowerCase() === 'authorization')) {
    issues.push({
      path: joinPath(at, 'headers'),
      message:
        'an "Authorization" header cannot be combined with "auth.user": each person\'s own token is sent',
    });
  }
  if (server.prefix === false) {
    issues.push({
      path: joinPath(at, 'prefix'),
      message:
        '"auth.user" needs the server\'s prefix: its tools are routed by name before anyone has connected',
    });
  }
  if (server.required === true) {
    issues.push({
      path: joinPath(at, 'required'),
      message: '"auth.user" cannot be "required": the gateway has no connection of its own to wait for',
    });
  }
  if (user.clientSecret !== undefined && user.clientId === undefined) {
    issues.push({ path: joinPath(path, 'clientSecret'), message: 'a clientSecret needs its "clientId"' });
  }
  return { kind: 'user', ...user };
}

/**
 * The core's view of a remote server's `auth` (its resource defaulting to the server's URL), or issues:
 * token exchange needs Streamable HTTP (a token per request), and a static `Authorization` header
 * cannot stand beside it. `user` resolves to the personal form (each person's own token).
 */
export function resolveUpstreamAuth(
  server: {
    url: string;
    headers: Record<string, string>;
    auth?: RawUpstreamAuth;
    prefix?: boolean;
    required?: boolean;
  },
  kind: 'http' | 'sse' | 'ws',
  at: string,
  issues: ConfigIssue[],
): UpstreamAuthConfig | PersonalAuthConfig | undefined {
  const raw = server.auth;
  if (raw === undefined) return undefined;
  if (raw.user !== undefined) return resolvePersonalAuth(raw.user, server, kind, at, issues);
  const form = raw.clientCredentials ? 'clientCredentials' : 'tokenExchange';
  const client = raw.clientCredentials ?? raw.tokenExchange;
  if (client === undefined) return undefined;
  if (Object.keys(server.headers).some((name) => name.toLowerCase() === 'authorization')) {
    issues.push({
      path: joinPath(at, 'headers'),
      message: `an "Authorization" header cannot be combined with "auth": the gateway sends its ${form} token`,
    });
  }
  if (form === 'tokenExchange' && kind !== 'http') {
    issues.push({
      path: joinPath(joinPath(at, 'auth'), form),
      message: `token exchange needs a Streamable HTTP upstream (a token per request), not ${kind === 'ws' ? 'WebSocket' : 'SSE'}; use "clientCredentials"`,
    });
  }
  const { resource, ...rest } = client;
  return {
    kind: form,
    ...rest,
    resource: resource === false ? undefined : (resource ?? server.url),
  };
}
