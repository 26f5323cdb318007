import type { Identity } from '../../context.js';
import { ErrorCode, GatewayError } from '../../errors.js';
import type { PersonalCredentials } from './personal-credentials.js';
import type { AuthorizedRequest, CredentialSource, UpstreamCredentials } from './upstream-auth.js';

/**
 * One person's credentials for their own connection to a personal upstream (`auth.user`): every HTTP
 * request of that connection, the handshake included, carries that person's token and no one else's.
 * On HTTP 401 the token is refreshed once (PersonalCredentials.refused); a refusal that a refresh does not
 * cure drops it and the person is asked to connect again (`authorization_required`).
 */
export class PersonalAuth implements CredentialSource {
  readonly #identity: Identity;
  readonly #upstream: string;
  readonly #credentials: PersonalCredentials;

  constructor(identity: Identity, upstream: string, credentials: PersonalCredentials) {
    this.#identity = identity;
    this.#upstream = upstream;
    this.#credentials = credentials;
  }

  bind(): UpstreamCredentials {
    return { authorize: (_message, request) => this.#authorize(request) };
  }

  async #authorize<T>(request: AuthorizedRequest<T>): Promise<T> {
    const token = await this.#credentials.token(this.#identity, this.#upstream);
    if (token === undefined) throw authorizationMissing(this.#upstream);
    const answer = await request.send(`Bearer ${token}`);
    if (request.status(answer) !== 401) return answer;
    request.discard(answer);
    const fresh = await this.#credentials.refused(this.#identity, this.#upstream, token);
    if (fresh === undefined) throw authorizationMissing(this.#upstream);
    const retried = await request.send(`Bearer ${fresh}`);
    if (request.status(retried) !== 401) return retried;
    request.discard(retried);
    // Refused even freshly refreshed: drop it (refused again resolves undefined) and ask the person again.
    await this.#credentials.refused(this.#identity, this.#upstream, fresh);
    throw authorizationMissing(this.#upstream);
  }
}

/**
 * The person has no usable token for `upstream`. Raised deep in a transport, where neither the caller's
 * capabilities nor a connect URL are known: the personal upstream completes it (`askToConnect`).
 */
export function authorizationMissing(upstream: string): GatewayError {
  return new GatewayError(
    ErrorCode.AuthorizationRequired,
    `Upstream '${upstream}' needs you to connect your own account first.`,
    { reason: 'authorization_required', upstream },
  );
}
