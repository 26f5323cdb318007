import type { UpstreamAuthConfig } from '@switchyard/core';
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
 * `mcpServers.*.auth` of a remote server: the gateway's own credentials for that upstream, exactly one of
 * `clientCredentials` (OAuth client credentials) or `tokenExchange` (RFC 8693, on behalf of each caller).
 */
export const upstreamAuthSchema = z
  .strictObject({ clientCredentials: oauthClient.optional(), tokenExchange: oauthClient.optional() })
  .refine(
    (auth) => (auth.clientCredentials === undefined) !== (auth.tokenExchange === undefined),
    'give exactly one of "clientCredentials" or "tokenExchange"',
  );

export type RawUpstreamAuth = z.infer<typeof upstreamAuthSchema>;

/**
 * The core's view of a remote server's `auth` (its resource defaulting to the server's URL), or issues:
 * token exchange needs Streamable HTTP (a token per request), and a static `Authorization` header
 * cannot stand beside it.
 */
export function resolveUpstreamAuth(
  server: { url: string; headers: Record<string, string>; auth?: RawUpstreamAuth },
  kind: 'http' | 'sse' | 'ws',
  at: string,
  issues: ConfigIssue[],
): UpstreamAuthConfig | undefined {
  const raw = server.auth;
  if (raw === undefined) return undefined;
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
