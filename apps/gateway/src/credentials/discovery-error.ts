/** The step of discovery that failed, named in {@link UserOAuthDiscoveryError}'s message. */
export type DiscoveryStep =
  | 'configuration'
  | 'probe'
  | 'protected resource metadata'
  | 'authorization server metadata'
  | 'client registration';

/**
 * Discovery of an upstream's OAuth side failed. The message names the upstream and the step, never a
 * secret; `unreachable` says the upstream or its authorization server did not answer (or answered 5xx)
 * rather than answering something unusable.
 */
export class UserOAuthDiscoveryError extends Error {
  override readonly name = 'UserOAuthDiscoveryError';
  constructor(
    readonly upstream: string,
    readonly step: DiscoveryStep,
    detail: string,
    readonly unreachable = false,
  ) {
    super(`upstream "${upstream}": ${step} failed: ${detail}`);
  }
}
