/**
 * The gateway's credentials classes (DESIGN §14), which the `switchyard` package does not export: loaded
 * from its build next to its entry point, typed by the part the bench uses; a missing build fails loudly.
 */
import type { Identity, Logger, Store } from '@switchyard/core';

/** One person's grant at one upstream, as the vault keeps it (sealed). */
export interface StoredGrant {
  accessToken: string;
  refreshToken?: string;
  expiresAt?: number;
  scope?: string;
  issuer: string;
  clientId: string;
  obtainedAt: number;
}

export interface TokenVault {
  /** `owner`: the kind of identity and its id (`credentialOwner`). */
  get(owner: string, upstream: string): Promise<StoredGrant | undefined>;
  put(owner: string, upstream: string, grant: StoredGrant): Promise<void>;
  close(): Promise<void>;
}

export interface TokenKeeper {
  token(identity: Identity, upstream: string): Promise<string | undefined>;
}

/** What the keeper asks when it must refresh or revoke: never, for a grant that does not need refreshing. */
interface OAuthServers {
  of(upstream: string): Promise<never>;
  forget(upstream: string): void;
}

export interface CredentialsModules {
  TokenVault: new (options: { store: Store; key: string; logger: Logger }) => TokenVault;
  TokenKeeper: new (options: { vault: TokenVault; servers: OAuthServers; logger: Logger }) => TokenKeeper;
  /** The vault's scope in the store, and the key of a grant in it (store-keys.ts). */
  CREDENTIALS_SCOPE: string;
  grantKey(owner: string, upstream: string): string;
}

let loaded: Promise<CredentialsModules> | undefined;

/** The gateway build's vault, keeper and store keys (loaded once). */
export function credentialsModules(): Promise<CredentialsModules> {
  loaded ??= (async () => {
    const entry = import.meta.resolve('switchyard');
    const load = (file: string) =>
      import(new URL(`./credentials/${file}`, entry).href).catch((error: unknown) => {
        throw new Error(`cannot load the gateway's credentials/${file} (build first: pnpm build): ${error}`);
      }) as Promise<Record<string, unknown>>;
    const files = await Promise.all(['vault.js', 'token-keeper.js', 'store-keys.js'].map(load));
    const modules: Record<string, unknown> = Object.assign({}, ...files);
    for (const name of ['TokenVault', 'TokenKeeper', 'CREDENTIALS_SCOPE', 'grantKey']) {
      if (modules[name] === undefined) throw new Error(`the gateway's credentials modules export no ${name}`);
    }
    return modules as unknown as CredentialsModules;
  })();
  return loaded;
}

/** A keeper that can only read: refreshing (never needed by the benchmark's grants) would fail loudly. */
export function readingKeeper(modules: CredentialsModules, vault: TokenVault, logger: Logger): TokenKeeper {
  const servers: OAuthServers = {
    of: (upstream) =>
      Promise.reject(new Error(`the credentials bench has no authorization server for ${upstream}`)),
    forget: () => {},
  };
  return new modules.TokenKeeper({ vault, servers, logger });
}
