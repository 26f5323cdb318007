import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identity } from '@switchyard/core';
import type { AuthenticateOptions, Authenticator, AuthOutcome } from './authenticator.js';

/**
 * The authenticator the listeners hold: it forwards to the current one, which a config reload replaces
 * (new clients, tokens or OAuth settings) without touching the listeners or their sessions.
 */
export class LiveAuthenticator implements Authenticator {
  #current: Authenticator;
  #closed = false;

  constructor(initial: Authenticator) {
    this.#current = initial;
  }

  get anonymous(): Identity {
    return this.#current.anonymous;
  }

  authenticate(authorization: string | undefined, options?: AuthenticateOptions): Promise<AuthOutcome> {
    return this.#current.authenticate(authorization, options);
  }

  serveMetadata(req: IncomingMessage, res: ServerResponse, listenerPath: string): boolean {
    return this.#current.serveMetadata(req, res, listenerPath);
  }

  /** From now on requests are checked by `next`; the previous authenticator is closed. */
  replace(next: Authenticator): void {
    if (this.#closed) {
      next.close();
      return;
    }
    const previous = this.#current;
    this.#current = next;
    previous.close();
  }

  close(): void {
    this.#closed = true;
    this.#current.close();
  }
}
