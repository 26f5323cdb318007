import { z } from 'zod';

/** Whether `url` may serve the OAuth callback: https, or http on a loopback host (local use, tests). */
function secureOrLoopback(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  return (
    protocol === 'https:' || (protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(hostname))
  );
}

const secret = z
  .string()
  .min(
    32,
    'must be at least 32 characters of random secret (e.g. `openssl rand -base64 32`; is the variable it reads set?)',
  );

/**
 * `credentials` (DESIGN §14): the vault of each person's upstream tokens. `key` seals them (AES-256-GCM);
 * `previousKeys` still open what older keys sealed (each is re-sealed under `key` when next read), so a
 * key is rotated without disconnecting anyone. `publicUrl` is where people's browsers reach the gateway:
 * the authorization servers redirect to `<publicUrl>/oauth/callback`.
 */
export const credentialsSchema = z.strictObject({
  key: secret,
  previousKeys: z.array(secret).default([]),
  publicUrl: z
    .string()
    .refine(
      secureOrLoopback,
      'must be an https:// URL (or http:// on 127.0.0.1/localhost) where browsers reach the gateway',
    )
    .transform((url) => url.replace(/\/+$/, '')),
});

export type CredentialsConfig = z.output<typeof credentialsSchema>;
