import { createHash, randomBytes } from 'node:crypto';
import {
  exchangeAuthorization,
  type FetchLike,
  IssuerMismatchError,
  OAuthError,
  type OAuthTokens,
  startAuthorization,
  validateAuthorizationResponseIssuer,
} from '@modelcontextprotocol/client';
import { type Identity, type Logger, MemoryStore, type Store, silentLogger } from '@switchyard/core';
import { credentialOwner, MAX_STORED_SEALED_CHARS, SealedBox } from '@switchyard/core/listener';
import { OAUTH_PATHS, publicUrlFor } from './client-metadata.js';
import { UserOAuthDiscoveryError } from './discovery-error.js';
import { boundedFetch, describeError, isUnreachable } from './oauth-fetch.js';
import type { UpstreamOAuthServer, UpstreamOAuthServers } from './types.js';

/** Where a successful connection's tokens go (the TokenKeeper). */
export interface GrantKeeper {
  store(owner: string, upstream: string, tokens: OAuthTokens, server: UpstreamOAuthServer): Promise<void>;
}

export interface ConnectFlowOptions {
  /** `credentials.publicUrl`. */
  publicUrl: string;
  /** `credentials.key`: seals tickets and pending authorizations (they hold the PKCE verifier). */
  key: string | undefined;
  servers: UpstreamOAuthServers;
  keeper: GrantKeeper;
  /**
   * The shared store, so the callback may land on another replica than the connect link; memory without
   * one. Pass it scoped as the vault's (`credentials:`).
   */
  store?: Store;
  /** The token request goes through it (default: global fetch). */
  fetch?: FetchLike;
  /** Bound on the token request (default 10 s). */
  timeoutMs?: number;
  /** How long a connect link, and then an authorization in progress, stays usable (default 10 min). */
  ttlMs?: number;
  logger?: Logger;
}

/** Why a step of the flow refused; `status` is the HTTP status of the page that says so. */
export type ConnectFailure =
  | 'unknown_ticket'
  | 'bad_request'
  | 'unknown_state'
  | 'other_browser'
  | 'denied'
  | 'refused'
  | 'issuer_mismatch'
  | 'not_configured'
  | 'changed'
  | 'unavailable'
  | 'store_unavailable';

/**
 * A step of the flow refused. The message is fit to show the person (it never holds a code, token,
 * verifier, state or ticket; an authorization server's error text only once its `iss` checked out).
 */
export class ConnectError extends Error {
  override readonly name = 'ConnectError';
  constructor(
    readonly reason: ConnectFailure,
    readonly status: 400 | 404 | 502 | 503,
    message: string,
    readonly upstream?: string,
  ) {
    super(message);
  }
}

/** Where to send the person's browser, and the binding that browser must carry back to the callback. */
export interface AuthorizationStart {
  url: string;
  upstream: string;
  /** The `state` sent (the callback's cookie is named after it). */
  state: string;
  /** A secret for a cookie on the callback's path: the callback completes only in the browser that began. */
  binding: string;
}

interface Ticket {
  id: string;
  /** `credentialOwner` of the identity that asked: its kind and id (the grant goes to exactly that). */
  owner: string;
  upstream: string;
  expiresAt: number;
}

interface Pending {
  id: string;
  owner: string;
  upstream: string;
  codeVerifier: string;
  issuer: string;
  clientId: string;
  redirectUri: string;
  /** sha256 of the browser binding. */
  binding: string;
  expiresAt: number;
}

const DEFAULT_TTL_MS = 10 * 60_000;
const DEFAULT_TIMEOUT_MS = 10_000;
/** 256-bit random values, base64url: tickets, states, bindings. */
const SECRET_BYTES = 32;
const SECRET_SHAPE = /^[\w-]{43}$/;
/** Store keys (`<prefix><sha256 of the secret>`), beside the vault's in the `credentials:` scope. */
const KEYS = {
  ticket: 'connect-ticket:',
  ticketUsed: 'connect-ticket-used:',
  state: 'oauth-state:',
  stateUsed: 'oauth-state-used:',
};
const CALLBACK_PARAMS = ['code', 'state', 'iss', 'error', 'error_description'] as const;

/**
 * The authorization code flow (with PKCE S256, RFC 8707 `resource`, RFC 9207 `iss`) by which a person
 * connects their own account at an upstream: `connectUrl` mints a single-use ticket bound to the
 * identity and upstream; `begin` (the browser opening it, no gateway token needed) spends it and sends
 * the browser to the authorization server under a fresh single-use `state`; `complete` (the callback)
 * spends the state, redeems the code and hands the tokens to the keeper. Tickets and states live in the
 * store (sealed; keyed by their hash, so the store never holds a usable one), at most `ttlMs`.
 */
export class ConnectFlow {
  readonly #options: ConnectFlowOptions;
  readonly #store: Store;
  readonly #fetch: FetchLike;
  readonly #tickets: SealedBox;
  readonly #states: SealedBox;
  readonly #ttlMs: number;
  readonly #timeoutMs: number;
  readonly #logger: Logger;

  constructor(options: ConnectFlowOptions) {
    this.#options = options;
    this.#store = options.store ?? new MemoryStore();
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#fetch = boundedFetch(options.fetch ?? fetch, this.#timeoutMs);
    const max = MAX_STORED_SEALED_CHARS;
    // v2: they name the credential owner (kind and id); a v1 one (a bare id, from before) opens as unknown.
    this.#tickets = new SealedBox(options.key, 'switchyard/oauth-connect-ticket/v2', 'syt2.', max);
    this.#states = new SealedBox(options.key, 'switchyard/oauth-pending/v2', 'syp2.', max);
    this.#ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * `<publicUrl>/oauth/connect/<ticket>`: single use, `ttlMs`, bound to `identity` (its kind and id: the
   * grant lands where exactly that identity finds it) and `upstream`.
   */
  async connectUrl(identity: Identity, upstream: string): Promise<string> {
    const ticket = secret();
    const id = digest(ticket);
    const value: Ticket = {
      id,
      owner: credentialOwner(identity),
      upstream,
      expiresAt: Date.now() + this.#ttlMs,
    };
    await this.#store.set(KEYS.ticket + id, this.#tickets.seal(value), { ttlMs: this.#ttlMs });
    return publicUrlFor(this.#options.publicUrl, OAUTH_PATHS.connect + ticket);
  }

  /** Spends `ticket` and starts the authorization at the upstream's authorization server. */
  async begin(ticket: string): Promise<AuthorizationStart> {
    const unknown = () =>
      new ConnectError(
        'unknown_ticket',
        404,
        'This connect link is unknown, already used or expired. Ask your MCP client for a new one (retry the call that needed it).',
      );
    if (!SECRET_SHAPE.test(ticket)) throw unknown();
    const id = digest(ticket);
    const found = this.#tickets.open(await this.#storeCall(() => this.#store.get(KEYS.ticket + id))) as
      | Ticket
      | undefined;
    if (found?.id !== id || found.expiresAt <= Date.now()) throw unknown();
    const { owner, upstream } = found;
    // Discovered before the ticket is spent: an authorization server that is down leaves the link usable.
    const server = await this.#server(upstream);
    if (!(await this.#claim(KEYS.ticketUsed + id, found.expiresAt))) throw unknown();
    await this.#storeCall(() => this.#store.delete(KEYS.ticket + id));

    const state = secret();
    const binding = secret();
    let started: { authorizationUrl: URL; codeVerifier: string };
    try {
      started = await startAuthorization(server.authorizationServerUrl, {
        metadata: server.metadata,
        clientInformation: server.client,
        redirectUrl: server.redirectUri,
        state,
        ...(server.scope ? { scope: server.scope } : {}),
        ...(server.resource ? { resource: server.resource } : {}),
      });
    } catch (error) {
      this.#logger.warn('connect: cannot start the authorization', {
        identity: owner,
        upstream,
        error: describeError(error),
      });
      throw new ConnectError(
        'unavailable',
        502,
        `Cannot start signing in at ${upstream}: ${describeError(error)}`,
      );
    }
    const pending: Pending = {
      id: digest(state),
      owner,
      upstream,
      codeVerifier: started.codeVerifier,
      issuer: server.metadata.issuer,
      clientId: server.client.client_id,
      redirectUri: server.redirectUri,
      binding: digest(binding),
      expiresAt: Date.now() + this.#ttlMs,
    };
    await this.#storeCall(() =>
      this.#store.set(KEYS.state + pending.id, this.#states.seal(pending), { ttlMs: this.#ttlMs }),
    );
    this.#logger.info('connect: sent to the authorization server', { identity: owner, upstream });
    return { url: started.authorizationUrl.href, upstream, state, binding };
  }

  /**
   * The callback (`code`, `state`, `iss`; or `error`, `state`): spends the state, checks the browser's
   * `binding` and the issuer, redeems the code and stores the tokens. Anything wrong stores nothing.
   */
  async complete(
    query: URLSearchParams,
    binding: string | undefined,
  ): Promise<{ owner: string; upstream: string }> {
    const params = single(query);
    const state = params.state;
    if (state === undefined || !SECRET_SHAPE.test(state)) {
      throw new ConnectError(
        'bad_request',
        400,
        'This page expects the answer of an authorization server (a valid state); it got none.',
      );
    }
    const pending = await this.#spendState(state);
    const { owner, upstream } = pending;
    const outcome = (result: string) =>
      this.#logger.info(`connect: ${result}`, { identity: owner, upstream });
    if (binding === undefined || digest(binding) !== pending.binding) {
      outcome('refused: completed in another browser');
      throw new ConnectError(
        'other_browser',
        400,
        `This sign-in to ${upstream} was started in another browser (or its cookie was lost). Retry the call (or Connect on the status page) for a new link, and open it in this browser.`,
        upstream,
      );
    }
    const server = await this.#server(upstream);
    if (server.metadata.issuer !== pending.issuer || server.client.client_id !== pending.clientId) {
      outcome('refused: the authorization server or client changed');
      throw new ConnectError(
        'changed',
        400,
        `The authorization server of ${upstream} changed while you signed in. Open a new connect link.`,
        upstream,
      );
    }
    const iss = params.iss;
    if (params.error !== undefined) {
      this.#checkIssuer(server, iss, outcome);
      outcome(`refused by the authorization server (${shortCode(params.error)})`);
      if (params.error === 'access_denied') {
        throw new ConnectError(
          'denied',
          400,
          `Access to ${upstream} was not granted at its authorization server. Nothing was connected.`,
          upstream,
        );
      }
      const description = params.error_description ? `: ${clip(params.error_description, 200)}` : '';
      throw new ConnectError(
        'refused',
        400,
        `The authorization server of ${upstream} answered ${shortCode(params.error)}${description}`,
        upstream,
      );
    }
    if (!params.code) {
      outcome('refused: no code');
      throw new ConnectError(
        'bad_request',
        400,
        `The authorization server's answer carries no authorization code. Open a new connect link.`,
        upstream,
      );
    }
    const tokens = await this.#redeem(server, pending, params.code, iss, outcome);
    try {
      await this.#options.keeper.store(owner, upstream, tokens, server);
    } catch (error) {
      this.#logger.warn('connect: storing the credential failed', {
        identity: owner,
        upstream,
        error: error instanceof Error ? error.name : 'error',
      });
      throw new ConnectError(
        'store_unavailable',
        503,
        `Signed in to ${upstream}, but the gateway could not save the connection. Try again shortly.`,
        upstream,
      );
    }
    outcome('connected');
    return { owner, upstream };
  }

  /** RFC 9207 on an error response too: a mismatched one is a mix-up, whose texts are never shown. */
  #checkIssuer(server: UpstreamOAuthServer, iss: string | undefined, outcome: (r: string) => void): void {
    try {
      validateAuthorizationResponseIssuer({
        iss,
        expectedIssuer: server.metadata.issuer,
        issParameterSupported: server.metadata.authorization_response_iss_parameter_supported === true,
      });
    } catch (error) {
      if (!(error instanceof IssuerMismatchError)) throw error;
      outcome('refused: iss mismatch (RFC 9207)');
      throw issuerMismatch(server.upstream);
    }
  }

  async #redeem(
    server: UpstreamOAuthServer,
    pending: Pending,
    code: string,
    iss: string | undefined,
    outcome: (r: string) => void,
  ): Promise<OAuthTokens> {
    const { upstream } = server;
    let status: number | undefined;
    const fetchFn: FetchLike = async (url, init) => {
      const response = await this.#fetch(url, init);
      status = response.status;
      return response;
    };
    try {
      return await exchangeAuthorization(server.authorizationServerUrl, {
        metadata: server.metadata,
        clientInformation: server.client,
        authorizationCode: code,
        ...(iss !== undefined ? { iss } : {}),
        codeVerifier: pending.codeVerifier,
        redirectUri: pending.redirectUri,
        ...(server.resource ? { resource: server.resource } : {}),
        fetchFn,
      });
    } catch (error) {
      if (error instanceof IssuerMismatchError) {
        outcome('refused: iss mismatch (RFC 9207)');
        throw issuerMismatch(upstream);
      }
      if (isUnreachable(error)) {
        outcome(`failed: the token endpoint did not answer (${describeError(error)})`);
        const seconds = Math.round(this.#timeoutMs / 1000);
        throw new ConnectError(
          'unavailable',
          502,
          `The authorization server of ${upstream} did not answer in time (${seconds} s). Try again later.`,
          upstream,
        );
      }
      if (
        error instanceof OAuthError &&
        (status === undefined || status < 500) &&
        error.code !== 'server_error'
      ) {
        outcome(`refused by the token endpoint (${shortCode(error.code)})`);
        throw new ConnectError(
          'refused',
          400,
          `The authorization server of ${upstream} refused the authorization code (${shortCode(error.code)}). Open a new connect link.`,
          upstream,
        );
      }
      outcome(`failed: the token endpoint answered ${status ?? 'nothing usable'}`);
      throw new ConnectError(
        'unavailable',
        502,
        `The authorization server of ${upstream} failed to issue a token${status ? ` (HTTP ${status})` : ''}. Try again later.`,
        upstream,
      );
    }
  }

  /** The pending authorization of `state`, spent (once, across replicas), else a refusal. */
  async #spendState(state: string): Promise<Pending> {
    const id = digest(state);
    const pending = this.#states.open(await this.#storeCall(() => this.#store.get(KEYS.state + id))) as
      | Pending
      | undefined;
    if (
      pending?.id !== id ||
      pending.expiresAt <= Date.now() ||
      !(await this.#claim(KEYS.stateUsed + id, pending.expiresAt))
    ) {
      this.#logger.info('connect: refused an unknown, spent or expired state');
      throw new ConnectError(
        'unknown_state',
        400,
        'This sign-in is unknown, already completed or expired. Nothing was connected; retry the call in your MCP client for a new link.',
      );
    }
    await this.#storeCall(() => this.#store.delete(KEYS.state + id));
    return pending;
  }

  async #server(upstream: string): Promise<UpstreamOAuthServer> {
    try {
      return await this.#options.servers.of(upstream);
    } catch (error) {
      if (error instanceof UserOAuthDiscoveryError && error.step === 'configuration' && !error.unreachable) {
        throw new ConnectError(
          'not_configured',
          400,
          `${upstream} cannot be connected: ${error.message}`,
          upstream,
        );
      }
      const detail = error instanceof Error ? error.message : String(error);
      throw new ConnectError(
        'unavailable',
        502,
        `Cannot reach the sign-in of ${upstream}: ${detail}`,
        upstream,
      );
    }
  }

  /** Marks `key` used, atomically across replicas: true for the one caller that did. */
  async #claim(key: string, expiresAt: number): Promise<boolean> {
    const ttlMs = Math.max(1_000, expiresAt - Date.now());
    return this.#storeCall(() => this.#store.setIfAbsent(key, '1', { ttlMs }));
  }

  async #storeCall<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      this.#logger.warn('connect: the store failed', {
        error: error instanceof Error ? error.name : 'error',
      });
      throw new ConnectError(
        'store_unavailable',
        503,
        'The gateway cannot reach its store right now. Try again shortly.',
      );
    }
  }
}

/** The name of the cookie holding the browser binding of the authorization sent with `state`. */
export function bindingCookieName(state: string): string {
  return `switchyard_oauth_${digest(state).slice(0, 16)}`;
}

function issuerMismatch(upstream: string): ConnectError {
  return new ConnectError(
    'issuer_mismatch',
    400,
    `The answer did not come from the authorization server of ${upstream} (its issuer did not match). Nothing was connected.`,
    upstream,
  );
}

/** The callback's parameters, each at most once (RFC 6749 §3.1: a repeated one is an invalid request). */
function single(query: URLSearchParams): Partial<Record<(typeof CALLBACK_PARAMS)[number], string>> {
  const params: Partial<Record<(typeof CALLBACK_PARAMS)[number], string>> = {};
  for (const name of CALLBACK_PARAMS) {
    const values = query.getAll(name);
    if (values.length > 1) {
      throw new ConnectError('bad_request', 400, `The authorization server's answer repeats "${name}".`);
    }
    if (values[0] !== undefined) params[name] = values[0];
  }
  return params;
}

function secret(): string {
  return randomBytes(SECRET_BYTES).toString('base64url');
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** An OAuth error code as shown: its own charset (RFC 6749 §5.2), short. */
function shortCode(code: string): string {
  const cleaned = code.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
  return clip(cleaned || 'an error', 64);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
