import type { Identity } from './context.js';

/**
 * The access token an identity authenticated with, when it came from an OAuth issuer. Kept beside the
 * identity (never on it), so it cannot be logged, audited or serialized with the identity; only the
 * gateway's own upstream credential code reads it, to exchange it at the issuer (RFC 8693) for a token
 * meant for one upstream. The caller's token itself never travels upstream.
 */
const subjectTokens = new WeakMap<Identity, string>();

/**
 * Records (or refreshes) the token `identity` presented. A long-lived session identity gets the token of
 * its latest request, so an exchange never uses an expired one.
 */
export function attachSubjectToken(identity: Identity, token: string): void {
  subjectTokens.set(identity, token);
}

/** The token `identity` authenticated with, or undefined (static client tokens, stdio, anonymous). */
export function subjectTokenOf(identity: Identity): string | undefined {
  return subjectTokens.get(identity);
}
