import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import type { Logger } from '@switchyard/core';
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import { capResponse, MAX_OAUTH_DOCUMENT_BYTES } from '../capped-response.js';

/** The issuer's metadata or keys cannot be read right now: callers answer 503 with `Retry-After`. */
export class IssuerUnavailable extends OAuthError {
  readonly retryAfterSec: number;

  constructor(message: string, retryAfterSec: number) {
    super(OAuthErrorCode.TemporarilyUnavailable, message);
    this.retryAfterSec = retryAfterSec;
  }
}

export interface IssuerKeysOptions {
  /** The issuer identifier from the config. */
  issuer: string;
  /** The JWKS URL; when unset it is discovered from the issuer's metadata. */
  jwksUri?: string;
  /** How soon after a JWKS fetch an unknown `kid` may cause another one. */
  cooldownMs: number;
  logger: Logger;
  /** Each fetch of metadata or keys gives up after this long. */
  timeoutMs?: number;
  /** The first retry after a failure; each further failure doubles it, up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * The issuer's signing keys: its metadata is discovered in the background (retried with backoff while
 * the issuer is unreachable; a request may start an attempt once the backoff has passed), then jose's
 * remote JWKS keeps the keys (cached, refetched on an unknown `kid` outside the cool-down).
 */
export class IssuerKeys {
  readonly #options: Required<Omit<IssuerKeysOptions, 'jwksUri'>> & { jwksUri?: string };
  readonly #log: Logger;
  #issuer: string;
  #getKey?: JWTVerifyGetKey;
  #reload?: () => Promise<void>;
  #discovery?: Promise<void>;
  #failures = 0;
  #retryAt = 0;
  #lastError = 'not contacted yet';
  #timer?: NodeJS.Timeout;
  #closed = false;

  constructor(options: IssuerKeysOptions) {
    this.#options = { timeoutMs: 5_000, minBackoffMs: 500, maxBackoffMs: 30_000, ...options };
    this.#log = options.logger.child('oauth');
    this.#issuer = options.issuer;
    if (options.jwksUri) this.#getKey = this.#keySet(options.jwksUri);
  }

  /** The `iss` tokens must carry: the metadata's issuer once discovered (it may differ by a trailing slash). */
  get issuer(): string {
    return this.#issuer;
  }

  /** Starts discovery (and the first key fetch) in the background; the gateway does not wait for it. */
  start(): void {
    if (this.#getKey) return void this.#warm();
    this.#discover();
  }

  /** The key resolver for jose's `jwtVerify`, or IssuerUnavailable while the issuer cannot be read. */
  async keys(): Promise<JWTVerifyGetKey> {
    if (this.#getKey) return this.#getKey;
    if (!this.#discovery) {
      const wait = this.#retryAt - Date.now();
      if (wait > 0) throw this.#unavailable(wait);
      this.#discover();
    }
    await this.#discovery;
    if (this.#getKey) return this.#getKey;
    throw this.#unavailable(this.#retryAt - Date.now());
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #discover(): void {
    if (this.#closed || this.#discovery || this.#getKey) return;
    this.#discovery = discoverJwksUri(this.#options.issuer, this.#options.timeoutMs)
      .then(({ issuer, jwksUri }) => {
        this.#issuer = issuer;
        this.#getKey = this.#keySet(jwksUri);
        this.#log.info('OAuth issuer discovered', { issuer, jwks: jwksUri });
        this.#recovered();
        this.#warm();
      })
      .catch((error: unknown) => {
        this.#failed(`cannot read the metadata of issuer ${this.#options.issuer}: ${describe(error)}`);
        clearTimeout(this.#timer);
        this.#timer = setTimeout(() => this.#discover(), Math.max(0, this.#retryAt - Date.now()));
        this.#timer.unref();
      })
      .finally(() => {
        this.#discovery = undefined;
      });
  }

  #keySet(jwksUri: string): JWTVerifyGetKey {
    const remote = createRemoteJWKSet(new URL(jwksUri), {
      cooldownDuration: this.#options.cooldownMs,
      timeoutDuration: this.#options.timeoutMs,
      // Only a fetched key set says the issuer is back (a key from the cache says nothing). Read here, at
      // most MAX_OAUTH_DOCUMENT_BYTES: a larger one fails the fetch (the issuer counts as unavailable).
      [customFetch]: async (url: string, init: RequestInit) => {
        const response = await fetch(url, init);
        if (response.status !== 200) {
          await response.body?.cancel().catch(() => {});
          return response; // jose refuses it: the issuer counts as unavailable
        }
        const capped = capResponse(response, MAX_OAUTH_DOCUMENT_BYTES, `the key set at ${url}`);
        const body = await capped.arrayBuffer();
        this.#recovered();
        return new Response(body, { status: 200, headers: response.headers });
      },
    });
    this.#reload = () => remote.reload();
    return async (header, token) => {
      try {
        return await remote(header, token);
      } catch (error) {
        if (!isFetchFailure(error)) throw error;
        this.#failed(
          `cannot fetch the keys of issuer ${this.#options.issuer} from ${jwksUri}: ${describe(error)}`,
        );
        throw this.#unavailable(this.#retryAt - Date.now());
      }
    };
  }

  /** Fetches the keys ahead of the first token, so a broken JWKS shows in the log at start. */
  #warm(): void {
    this.#reload?.().catch((error: unknown) =>
      this.#failed(`cannot fetch the keys of issuer ${this.#options.issuer}: ${describe(error)}`),
    );
  }

  #failed(reason: string): void {
    this.#lastError = reason;
    // Requests that fail together (one shared JWKS fetch) are one failure: the backoff grows per attempt.
    if (Date.now() < this.#retryAt) return;
    const backoff = Math.min(this.#options.maxBackoffMs, this.#options.minBackoffMs * 2 ** this.#failures);
    this.#failures += 1;
    this.#retryAt = Date.now() + backoff;
    // Once per outage at warn, then quietly: an unreachable issuer must not flood the log.
    const level = this.#failures === 1 ? 'warn' : 'debug';
    this.#log[level]('OAuth issuer unavailable; OAuth requests get 503 until it answers', {
      reason,
      retryInMs: backoff,
    });
  }

  #recovered(): void {
    if (this.#failures === 0) return;
    this.#failures = 0;
    this.#retryAt = 0;
    this.#log.info('OAuth issuer reachable again', { issuer: this.#issuer });
  }

  #unavailable(waitMs: number): IssuerUnavailable {
    return new IssuerUnavailable(
      `the OAuth issuer cannot be reached to check access tokens (${this.#lastError}); retry shortly`,
      Math.max(1, Math.ceil(waitMs / 1000)),
    );
  }
}

/**
 * Reads the issuer's RFC 8414 or OpenID Connect discovery document (the well-known URLs in the order the
 * MCP authorization spec lists) and returns its `jwks_uri`. A 4xx moves on to the next URL; a network
 * error, a 5xx or a document over MAX_OAUTH_DOCUMENT_BYTES fails the attempt (the issuer may come up later).
 */
export async function discoverJwksUri(
  issuer: string,
  timeoutMs: number,
): Promise<{ issuer: string; jwksUri: string }> {
  const misses: string[] = [];
  for (const url of metadataUrls(issuer)) {
    const response = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status >= 400 && response.status < 500) {
      await response.body?.cancel();
      misses.push(`${response.status} at ${url}`);
      continue;
    }
    if (!response.ok) throw new Error(`HTTP ${response.status} at ${url}`);
    const document = capResponse(response, MAX_OAUTH_DOCUMENT_BYTES, `the metadata at ${url}`);
    const metadata = (await document.json()) as { issuer?: unknown; jwks_uri?: unknown };
    // RFC 8414 §3.3: the document must name the issuer it was fetched for.
    if (metadata.issuer !== issuer && `${metadata.issuer}/` !== issuer && metadata.issuer !== `${issuer}/`) {
      throw new Error(
        `${url} names issuer ${String(metadata.issuer)}, not ${issuer}: check auth.oauth.issuer`,
      );
    }
    if (typeof metadata.jwks_uri !== 'string' || !URL.canParse(metadata.jwks_uri)) {
      throw new Error(`${url} has no jwks_uri: set auth.oauth.jwksUri`);
    }
    return { issuer: metadata.issuer as string, jwksUri: metadata.jwks_uri };
  }
  throw new Error(`no authorization server metadata found (${misses.join(', ')})`);
}

function metadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  const at = (p: string) => new URL(p, url.origin);
  if (path === '') {
    return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  }
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

/** A failure to reach or read the JWKS (as opposed to a token whose key is not in it). */
function isFetchFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    !(typeof code === 'string' && code.startsWith('ERR_J')) ||
    code === 'ERR_JWKS_TIMEOUT' ||
    code === 'ERR_JOSE_GENERIC' ||
    code === 'ERR_JWKS_INVALID'
  );
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message;
  return detail ? `${error.message} (${detail})` : error.message;
}
