import { createHmac, randomBytes } from 'node:crypto';

/**
 * The key for one kind of token (`label`, e.g. `switchyard/cursor/v1`): derived from `secret`, so every
 * gateway given the same secret derives the same key and accepts the others' tokens; without a secret,
 * random per process. One label per kind keeps a token of one kind from passing as another.
 */
export function deriveKey(label: string, secret: string | undefined): Buffer {
  return createHmac('sha256', label)
    .update(secret ?? randomBytes(32))
    .digest();
}
