import {
  GatewayError,
  type Identity,
  type Logger,
  type PersonalCredentials,
  type Store,
  StoreUnavailableError,
  type UpstreamConfig,
} from '@switchyard/core';
import { credentialOwner } from '@switchyard/core/listener';
import type { CredentialsConfig } from '../config/credentials-schema.js';
import { ConnectFlow } from './connect-flow.js';
import { OAuthServerDirectory, type UserOAuthUpstream } from './discovery.js';
import { type CredentialRoutes, credentialRoutes } from './routes.js';
import { CREDENTIALS_SCOPE } from './store-keys.js';
import { TokenKeeper } from './token-keeper.js';
import { TokenVault } from './vault.js';

/** One personal upstream as `GET /admin/credentials` shows it to the signed-in identity. */
export interface CredentialStatus {
  server: string;
  connected: boolean;
  /** When the current access token expires (ISO time), when its server said; it is refreshed before. */
  expiresAt?: string;
}

/**
 * The vault lives in the store (DESIGN §12): while it does not answer, a call that needs a person's
 * token is refused as `store_unavailable` (-32000), never as an internal error; there is no local
 * fallback for credentials, whatever `onUnavailable` says (another replica may hold newer tokens).
 */
async function storeAnswers<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw GatewayError.storeUnavailable('the credentials vault');
    throw error;
  }
}

/** The personal upstreams of a config (`auth.user`), by name. */
function personalUpstreams(upstreams: readonly UpstreamConfig[]): Map<string, UserOAuthUpstream> {
  const out = new Map<string, UserOAuthUpstream>();
  for (const u of upstreams) {
    if (u.transport.kind !== 'http' || u.transport.auth?.kind !== 'user') continue;
    const { clientId, clientSecret, scope } = u.transport.auth;
    out.set(u.name, { url: u.transport.url, user: { clientId, clientSecret, scope } });
  }
  return out;
}

/**
 * Each person's own upstream credentials (DESIGN §14), as the gateway runs them: discovery and
 * registration per upstream, the connect flow (links, state, PKCE, callback), the sealed vault in the
 * store and the keeper that refreshes, drops and revokes. It is the core's `PersonalCredentials`, and it
 * answers the admin API (`list`, `disconnect`) and the HTTP routes under `<publicUrl>/oauth/`.
 */
export class UserCredentials implements PersonalCredentials {
  readonly routes: CredentialRoutes;
  readonly #vault: TokenVault;
  readonly #keeper: TokenKeeper;
  readonly #flow: ConnectFlow;
  readonly #servers: OAuthServerDirectory;
  #upstreams: Map<string, UserOAuthUpstream>;

  private constructor(
    config: CredentialsConfig,
    upstreams: readonly UpstreamConfig[],
    store: Store,
    log: Logger,
  ) {
    this.#upstreams = personalUpstreams(upstreams);
    const scoped = store.scoped(CREDENTIALS_SCOPE);
    this.#servers = new OAuthServerDirectory({
      upstream: (name) => this.#upstreams.get(name),
      publicUrl: config.publicUrl,
      key: config.key,
      previousKeys: config.previousKeys,
      store: scoped,
      logger: log,
    });
    this.#vault = new TokenVault({ store, key: config.key, previousKeys: config.previousKeys, logger: log });
    this.#keeper = new TokenKeeper({ vault: this.#vault, servers: this.#servers, logger: log });
    this.#flow = new ConnectFlow({
      publicUrl: config.publicUrl,
      key: config.key,
      servers: this.#servers,
      keeper: this.#keeper,
      store: scoped,
      logger: log,
    });
    this.routes = credentialRoutes({ publicUrl: config.publicUrl, flow: this.#flow, logger: log });
  }

  /** The credentials of `config`, started (listening to other replicas); undefined without `credentials`. */
  static async open(
    config: CredentialsConfig | undefined,
    upstreams: readonly UpstreamConfig[],
    store: Store,
    logger: Logger,
  ): Promise<UserCredentials | undefined> {
    if (config === undefined) return undefined;
    const credentials = new UserCredentials(config, upstreams, store, logger.child('credentials'));
    await credentials.#vault.start();
    return credentials;
  }

  token(identity: Identity, upstream: string): Promise<string | undefined> {
    return storeAnswers(this.#keeper.token(identity, upstream));
  }

  refused(identity: Identity, upstream: string, token: string): Promise<string | undefined> {
    return storeAnswers(this.#keeper.refused(identity, upstream, token));
  }

  connectUrl(identity: Identity, upstream: string): Promise<string> {
    return storeAnswers(this.#flow.connectUrl(identity, upstream));
  }

  onChange(listener: (owner: string, upstream: string, connected: boolean) => void): () => void {
    return this.#keeper.onChange(listener);
  }

  /** Whether `server` is a personal upstream (`auth.user`) of the running config. */
  isPersonal(server: string): boolean {
    return this.#upstreams.has(server);
  }

  /** `identity`'s personal upstreams (its kind's, see `credentialOwner`), connected or not, in config order. */
  async list(identity: Identity): Promise<CredentialStatus[]> {
    const owner = credentialOwner(identity);
    return Promise.all(
      [...this.#upstreams.keys()].map(async (server) => {
        const grant = await this.#vault.get(owner, server);
        if (grant === undefined) return { server, connected: false };
        return {
          server,
          connected: true,
          ...(grant.expiresAt === undefined ? {} : { expiresAt: new Date(grant.expiresAt).toISOString() }),
        };
      }),
    );
  }

  /** Forgets (and revokes where the server supports RFC 7009) `identity`'s token at `server`. */
  disconnect(identity: Identity, server: string): Promise<boolean> {
    return this.#keeper.disconnect(credentialOwner(identity), server);
  }

  /** Follows a reload: upstreams added, changed (discovered again) or removed. */
  reconfigure(upstreams: readonly UpstreamConfig[]): void {
    const next = personalUpstreams(upstreams);
    for (const [name, upstream] of this.#upstreams) {
      const now = next.get(name);
      if (now === undefined || JSON.stringify(now) !== JSON.stringify(upstream)) this.#servers.forget(name);
    }
    this.#upstreams = next;
  }

  close(): Promise<void> {
    return this.#vault.close();
  }
}
