/**
 * The gateway's RFC 7591 dynamic registrations at upstreams' authorization servers: one per (upstream,
 * issuer, redirect URI), sealed in the store (a registration may hold a client secret) so that replicas
 * share one, opened under `previousKeys` after a key rotation and sealed again under the current key.
 */
import { createHash } from 'node:crypto';
import {
  type AuthorizationServerMetadata,
  type FetchLike,
  type OAuthClientInformationFull,
  registerClient,
} from '@modelcontextprotocol/client';
import type { Logger, Store } from '@switchyard/core';
import { MAX_STORED_SEALED_CHARS, SealedBox } from '@switchyard/core/listener';
import { redirectUri, registrationMetadata } from './client-metadata.js';
import { UserOAuthDiscoveryError } from './discovery-error.js';
import { describeError, isUnreachable } from './oauth-fetch.js';

const REGISTRATION_KEY_PREFIX = 'oauth-registration:';
const REGISTRATION_LABEL = 'switchyard/oauth-registration/v1';

export interface ClientRegistrationsOptions {
  /** `credentials.publicUrl`: the redirect URI registered. */
  publicUrl: string;
  /** `credentials.key` and `credentials.previousKeys`. */
  key: string | undefined;
  previousKeys?: readonly string[];
  store: Store;
  fetch: FetchLike;
  logger: Logger;
}

export class ClientRegistrations {
  readonly #options: ClientRegistrationsOptions;
  readonly #box: SealedBox;
  /** Boxes of `previousKeys`: a registration stored before a key rotation stays the gateway's client. */
  readonly #previous: readonly SealedBox[];

  constructor(options: ClientRegistrationsOptions) {
    this.#options = options;
    const box = (key: string | undefined) =>
      new SealedBox(key, REGISTRATION_LABEL, 'syr1.', MAX_STORED_SEALED_CHARS);
    this.#box = box(options.key);
    this.#previous = (options.previousKeys ?? []).map(box);
  }

  /** The stored registration for (upstream, issuer, redirect URI), else a new one (stored once). */
  async of(
    name: string,
    metadata: AuthorizationServerMetadata,
    scope: string | undefined,
  ): Promise<OAuthClientInformationFull> {
    const step = 'client registration';
    const { store, publicUrl } = this.#options;
    const key = registrationKey(name, metadata.issuer, redirectUri(publicUrl));
    const raw = await this.#read(key);
    const stored = this.#open(raw);
    if (stored) return stored;
    const rotated = this.#openPrevious(raw);
    if (rotated) {
      // Sealed under a key rotated out: the same client, sealed again under the current key.
      await store.set(key, this.#box.seal(rotated)).catch(() => undefined);
      return rotated;
    }
    if (!metadata.registration_endpoint) {
      const why = metadata.client_id_metadata_document_supported
        ? 'credentials.publicUrl is not https, so the Client ID Metadata Document cannot be used'
        : 'nor does it accept Client ID Metadata Documents';
      throw new UserOAuthDiscoveryError(
        name,
        step,
        `no clientId is configured, the authorization server offers no dynamic registration, ${why}`,
      );
    }
    let registered: OAuthClientInformationFull;
    try {
      registered = await registerClient(metadata.issuer, {
        metadata,
        clientMetadata: registrationMetadata(
          publicUrl,
          tokenEndpointAuthMethod(metadata.token_endpoint_auth_methods_supported),
        ),
        ...(scope ? { scope } : {}),
        fetchFn: this.#options.fetch,
      });
    } catch (error) {
      throw new UserOAuthDiscoveryError(name, step, describeError(error), isUnreachable(error));
    }
    const record = registrationRecord(registered);
    const ttlMs = record.client_secret_expires_at ? record.client_secret_expires_at * 1000 - Date.now() : 0;
    const sealed = this.#box.seal(record);
    // Two replicas registering at once: the first stored wins, and both use it.
    const first = await store
      .setIfAbsent(key, sealed, ttlMs > 0 ? { ttlMs } : undefined)
      .catch(() => undefined);
    if (first === false) return this.#open(await this.#read(key)) ?? record;
    this.#options.logger.info('registered the gateway as an OAuth client (RFC 7591)', {
      upstream: name,
      issuer: metadata.issuer,
    });
    return record;
  }

  /**
   * Deletes the stored registration of (upstream, issuer, redirect URI) when it is still `clientId`:
   * another replica may have stored a new one meanwhile.
   */
  async drop(upstream: string, issuer: string, redirect: string, clientId: string): Promise<void> {
    const key = registrationKey(upstream, issuer, redirect);
    if (this.#open(await this.#read(key))?.client_id !== clientId) return;
    await this.#options.store.delete(key);
  }

  async #read(key: string): Promise<string | undefined> {
    try {
      return await this.#options.store.get(key);
    } catch {
      return undefined;
    }
  }

  /** A registration one of `previousKeys` sealed, if any opens it. */
  #openPrevious(raw: string | undefined): OAuthClientInformationFull | undefined {
    for (const box of this.#previous) {
      const found = this.#open(raw, box);
      if (found) return found;
    }
    return undefined;
  }

  #open(raw: string | undefined, box = this.#box): OAuthClientInformationFull | undefined {
    const record = box.open(raw) as OAuthClientInformationFull | undefined;
    if (!record || typeof record.client_id !== 'string') return undefined;
    const expires = record.client_secret_expires_at;
    if (expires && expires * 1000 <= Date.now() + 60_000) return undefined;
    return record;
  }
}

/** `none` (a public client, PKCE only) unless the server accepts no public clients. */
function tokenEndpointAuthMethod(supported: readonly string[] | undefined): string {
  if (!supported || supported.length === 0 || supported.includes('none')) return 'none';
  if (supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return 'none';
}

/** What is kept of a registration: what token requests need, not the echoed metadata. */
function registrationRecord(registered: OAuthClientInformationFull): OAuthClientInformationFull {
  return {
    client_id: registered.client_id,
    redirect_uris: registered.redirect_uris,
    ...(registered.client_secret ? { client_secret: registered.client_secret } : {}),
    ...(registered.client_id_issued_at ? { client_id_issued_at: registered.client_id_issued_at } : {}),
    ...(registered.client_secret_expires_at
      ? { client_secret_expires_at: registered.client_secret_expires_at }
      : {}),
    ...(registered.token_endpoint_auth_method
      ? { token_endpoint_auth_method: registered.token_endpoint_auth_method }
      : {}),
  };
}

function registrationKey(upstream: string, issuer: string, redirect: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([upstream, issuer, redirect]))
    .digest('base64url');
  return `${REGISTRATION_KEY_PREFIX}${digest}`;
}
