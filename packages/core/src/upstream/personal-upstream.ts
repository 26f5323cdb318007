import type { ServerCapabilities } from '@modelcontextprotocol/client';
import type { UpstreamConfig } from '../config.js';
import type { Identity, RequestContext } from '../context.js';
import { ErrorCode, GatewayError } from '../errors.js';
import { credentialOwner } from '../identity-kind.js';
import type { Logger } from '../logger.js';
import { askToConnect } from './auth/ask-to-connect.js';
import { PersonalAuth } from './auth/personal-auth.js';
import type { PersonalCredentials } from './auth/personal-credentials.js';
import type { CallChain } from './call-chain.js';
import { UpstreamConnection, type UpstreamListener, type UpstreamState } from './connection.js';
import type { UpstreamLimits } from './limits.js';
import type { UpstreamRequestOptions } from './origin.js';

/** A person's connection closes after this long without a request (it reopens on the next one). */
export const PERSONAL_IDLE_MS = 10 * 60_000;
/** What a personal upstream is assumed to offer before anyone has connected to it. */
const ASSUMED: ServerCapabilities = { tools: { listChanged: true } };
/** List methods: a caller who has not connected sees an empty page, not an error, beside the other servers. */
const LIST_FIELD: Readonly<Record<string, keyof ServerCapabilities>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
};
const LIST_RESULT: Readonly<Record<string, string>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

interface PersonConnection {
  readonly connection: UpstreamConnection;
  /** Settles when its first handshake does (rejects with why it failed, or when it closes before). */
  readonly ready: Promise<void>;
  /** Rejects `ready` if it has not settled yet. */
  readonly abandon: (error: unknown) => void;
  lastUsed: number;
}

/**
 * An upstream that authorizes each person with their own OAuth token (`auth.user`, DESIGN §14). It has no
 * connection of its own: each caller's requests go over that caller's own connection, opened on their
 * first request with their token (handshake included) and closed after {@link PERSONAL_IDLE_MS} idle or
 * when they disconnect. One person's connection, session and token never serve another: connections are
 * keyed by credential owner (the identity's kind and id: an OAuth `sub` "alice" is not the static client
 * `alice`) and created only from the request's own identity. A caller without a token is
 * asked to connect (`askToConnect`); a list answers an empty page for them.
 */
export class PersonalUpstream extends UpstreamConnection {
  readonly #people = new Map<string, PersonConnection>();
  readonly #credentials: PersonalCredentials;
  readonly #listener: UpstreamListener;
  readonly #log: Logger;
  readonly #chain: CallChain;
  readonly #limits: UpstreamLimits | undefined;
  /** What its servers offered when a person last connected (all connect to the same server). */
  #known: ServerCapabilities = ASSUMED;
  #era: 'modern' | 'legacy' | undefined;
  #closed = false;
  readonly #sweep: NodeJS.Timeout;
  readonly #stopListening: () => void;

  constructor(
    config: UpstreamConfig,
    listener: UpstreamListener,
    logger: Logger,
    chain: CallChain,
    limits: UpstreamLimits | undefined,
    credentials: PersonalCredentials,
  ) {
    super(config, listener, logger, chain, limits, undefined);
    this.#credentials = credentials;
    this.#listener = listener;
    this.#log = logger.child(config.name);
    this.#chain = chain;
    this.#limits = limits;
    this.#sweep = setInterval(() => this.#closeIdle(), Math.min(PERSONAL_IDLE_MS, 60_000));
    this.#sweep.unref?.();
    // A person who disconnects (on any replica) loses their connection at once.
    this.#stopListening = credentials.onChange((owner, upstream, connected) => {
      if (upstream === this.name && !connected) void this.#drop(owner);
    });
  }

  override get state(): UpstreamState {
    return this.#closed ? 'closed' : 'personal';
  }

  override get capabilities(): ServerCapabilities | undefined {
    return this.#known;
  }

  override get knownCapabilities(): ServerCapabilities | undefined {
    return this.#known;
  }

  override get era(): 'modern' | 'legacy' | undefined {
    return this.#era;
  }

  /** How many people have a connection open now. */
  get connectedPeople(): number {
    return this.#people.size;
  }

  override start(): void {}

  override async hasLegacyPath(): Promise<boolean> {
    return false;
  }

  override async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: UpstreamRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const ctx = options.origin?.context;
    const listed = LIST_FIELD[method];
    if (listed !== undefined && (ctx === undefined || !(await this.#hasToken(ctx)))) {
      return { [LIST_RESULT[method]!]: [] };
    }
    const person = await this.#personFor(ctx);
    if (listed !== undefined && person.connection.capabilities?.[listed] === undefined) {
      return { [LIST_RESULT[method]!]: [] };
    }
    try {
      return await person.connection.request(method, params, options);
    } catch (error) {
      throw await this.#completed(error, ctx);
    }
  }

  override async subscribe(uri: string, options: UpstreamRequestOptions = {}): Promise<void> {
    const person = await this.#personFor(options.origin?.context);
    await person.connection.subscribe(uri, options);
  }

  override async unsubscribe(uri: string, options: UpstreamRequestOptions = {}): Promise<void> {
    const identity = options.origin?.context?.identity;
    const person = identity === undefined ? undefined : this.#people.get(credentialOwner(identity));
    await person?.connection.unsubscribe(uri, options);
  }

  override async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweep);
    this.#stopListening();
    const people = [...this.#people.values()];
    this.#people.clear();
    await Promise.allSettled([super.close(), ...people.map((p) => p.connection.close())]);
  }

  async #hasToken(ctx: RequestContext): Promise<boolean> {
    if (this.#people.has(credentialOwner(ctx.identity))) return true;
    if (!usable(ctx)) return false;
    return (await this.#credentials.token(ctx.identity, this.name)) !== undefined;
  }

  /** The caller's own connection, opened (with their token) if need be; asks them to connect if they have none. */
  async #personFor(ctx: RequestContext | undefined): Promise<PersonConnection> {
    if (this.#closed) throw GatewayError.upstreamUnavailable(this.name, 'gateway shutting down');
    if (ctx === undefined) {
      throw GatewayError.upstreamUnavailable(
        this.name,
        'it is called on behalf of each person, not the gateway',
      );
    }
    if (!usable(ctx)) throw identityRequired(this.name);
    const identity = ctx.identity;
    const owner = credentialOwner(identity);
    let person = this.#people.get(owner);
    if (person === undefined) {
      if ((await this.#credentials.token(identity, this.name)) === undefined) {
        throw askToConnect(ctx, this.name, await this.#credentials.connectUrl(identity, this.name));
      }
      person = this.#people.get(owner) ?? this.#open(identity);
    }
    person.lastUsed = Date.now();
    try {
      await person.ready;
    } catch (error) {
      throw await this.#completed(error, ctx);
    }
    return person;
  }

  #open(identity: Identity): PersonConnection {
    let settle: { resolve: () => void; reject: (error: unknown) => void } | undefined;
    const ready = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    // Handled by whoever awaits it; an unawaited failure must not be an unhandled rejection.
    ready.catch(() => {});
    const id = credentialOwner(identity);
    const listener: UpstreamListener = {
      ready: (c) => {
        this.#known = c.knownCapabilities ?? this.#known;
        this.#era = c.era;
        settle?.resolve();
      },
      // Its connection reconnects by itself while the person's token holds.
      down: () => {},
      // A connection that cannot be made is closed: the next request opens a fresh one (asking the person
      // again if the token was dropped), rather than a retry loop on an absent person's behalf.
      failed: (_c, error) => {
        settle?.reject(error);
        void this.#drop(id, person);
      },
      notification: (_c, method, params, origins) =>
        this.#listener.notification(this, method, params, origins),
    };
    const connection = new UpstreamConnection(
      this.config,
      listener,
      this.#log,
      this.#chain,
      this.#limits,
      new PersonalAuth(identity, this.name, this.#credentials),
    );
    const person: PersonConnection = {
      connection,
      ready,
      abandon: (error) => settle?.reject(error),
      lastUsed: Date.now(),
    };
    this.#people.set(id, person);
    connection.start();
    this.#log.info('opened a personal connection', { identity: id });
    return person;
  }

  /** Closes `owner`'s connection (only `expected`, when given: a newer one stays). */
  async #drop(owner: string, expected?: PersonConnection): Promise<void> {
    const person = this.#people.get(owner);
    if (person === undefined || (expected !== undefined && person !== expected)) return;
    this.#people.delete(owner);
    // A request waiting for its first handshake is answered (a closed connection reports nothing more).
    person.abandon(GatewayError.upstreamUnavailable(this.name, 'its connection closed before it was ready'));
    await person.connection.close();
  }

  #closeIdle(): void {
    const before = Date.now() - PERSONAL_IDLE_MS;
    for (const [id, person] of this.#people) if (person.lastUsed < before) void this.#drop(id, person);
  }

  /**
   * An error from the person's connection, with the way to connect filled in when it lacks a token. That
   * includes a connection that closed under the request because the token was dropped meanwhile (the
   * upstream refused it and a refresh did not cure that: dropping it closes the connection at once, see
   * the constructor; or the person disconnected on another replica): `upstream_unavailable` then.
   */
  async #completed(error: unknown, ctx: RequestContext | undefined): Promise<unknown> {
    if (!(error instanceof GatewayError) || ctx === undefined) return error;
    if (error.reason !== 'authorization_required') {
      if (error.reason !== 'upstream_unavailable' || !usable(ctx)) return error;
      const token = await this.#credentials.token(ctx.identity, this.name).catch(() => null);
      if (token !== undefined) return error;
    }
    await this.#drop(credentialOwner(ctx.identity));
    return askToConnect(ctx, this.name, await this.#credentials.connectUrl(ctx.identity, this.name));
  }
}

/**
 * Whether the caller is one person: a named client, an OAuth identity, or the local stdio user. An
 * anonymous network caller is everyone who reaches the listener without a token: one person's token
 * would serve them all.
 */
function usable(ctx: RequestContext): boolean {
  return !ctx.identity.anonymous || ctx.session.transport === 'stdio';
}

function identityRequired(upstream: string): GatewayError {
  return new GatewayError(
    ErrorCode.Forbidden,
    `Upstream '${upstream}' acts as each person with their own account, and this request has no identity of its own (an anonymous caller). Call the gateway with your client token or OAuth sign-in.`,
    { reason: 'identity_required', upstream },
  );
}
