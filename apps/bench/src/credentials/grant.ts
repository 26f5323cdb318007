/** The grant every credentials measurement reads: a JWT-sized access token (~900 chars) and a refresh token. */
import { randomBytes, randomUUID } from 'node:crypto';
import type { StoredGrant } from './internals.js';

/** Length of the access token: an RS256 JWT with a typical claim set. */
export const ACCESS_TOKEN_CHARS = 900;

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A signed-JWT-shaped access token of `chars` characters (header, claims padded to size, 256-byte signature). */
function jwtLike(subject: string, chars: number, now: number): string {
  const header = b64({ alg: 'RS256', typ: 'at+jwt', kid: 'bench-2026-11' });
  const signature = randomBytes(256).toString('base64url');
  const claims: Record<string, unknown> = {
    iss: 'https://auth.tracker.example.com/',
    sub: subject,
    aud: 'https://tracker.example.com/mcp',
    client_id: 'https://mcp.example.com/oauth/client.json',
    scope: 'read write issues:read issues:write projects:read',
    iat: Math.floor(now / 1000),
    exp: Math.floor(now / 1000) + 3600,
    jti: randomUUID(),
    sid: randomUUID(),
    auth_time: Math.floor(now / 1000) - 120,
    ext: '',
  };
  const room = chars - header.length - signature.length - 2 - b64(claims).length;
  claims.ext = 'x'.repeat(Math.max(0, Math.floor((room * 3) / 4)));
  return `${header}.${b64(claims)}.${signature}`;
}

/** `subject`'s grant, valid for an hour (a minute-ahead refresh never triggers during the bench). */
export function benchGrant(subject: string, now = Date.now()): StoredGrant {
  return {
    accessToken: jwtLike(subject, ACCESS_TOKEN_CHARS, now),
    refreshToken: randomBytes(48).toString('base64url'),
    expiresAt: now + 3600_000,
    scope: 'read write',
    issuer: 'https://auth.tracker.example.com/',
    clientId: 'https://mcp.example.com/oauth/client.json',
    obtainedAt: now,
  };
}
