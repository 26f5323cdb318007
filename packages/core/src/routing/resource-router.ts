import type { RequestTarget } from '../context.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../logger.js';
import { splitExposedUri } from '../naming/uris.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import type { UpstreamPool } from '../upstream/pool.js';
import { UnprefixedCatalog } from './unprefixed-catalog.js';

/** Where an exposed resource URI leads: the upstream and the URI it knows the resource by. */
export interface ResourceTarget {
  readonly upstream: UpstreamConnection;
  readonly uri: string;
}

/**
 * Resolves exposed resource URIs (DESIGN §4): unprefixed servers' exact URIs first, then the files of
 * their skills, then `name+uri` (`skill://name/…` for skill URIs), then unprefixed templates; config
 * order wins collisions.
 */
export class ResourceRouter {
  readonly catalog: UnprefixedCatalog;
  readonly #pool: UpstreamPool;

  constructor(pool: UpstreamPool, logger: Logger) {
    this.#pool = pool;
    this.catalog = new UnprefixedCatalog(
      pool.ordered.filter((u) => !u.config.prefix).map((u) => u.name),
      logger,
      () => pool.limits.maxPagesPerList,
    );
  }

  /** Follows a change of the pool's upstream set; `kept` are the upstreams whose connection stayed. */
  reconfigure(kept: ReadonlySet<string>): void {
    this.catalog.setOrder(
      this.#pool.ordered.filter((u) => !u.config.prefix).map((u) => u.name),
      kept,
    );
  }

  /**
   * The target of an exposed URI; throws "resource not found" when no upstream owns it. A request the
   * gateway already routed (`known`: its `ctx.target`, resolved once as it entered) is not resolved again.
   */
  route(exposed: string, known?: RequestTarget): ResourceTarget {
    const target = this.resolve(exposed, known);
    if (!target) throw unownedUri(exposed);
    return target;
  }

  /** Like {@link route}, but undefined when no upstream owns the URI. */
  resolve(exposed: string, known?: RequestTarget): ResourceTarget | undefined {
    if (known?.kind === 'resource' && known.exposed === exposed && known.uri !== undefined) {
      const upstream = this.#pool.get(known.upstream);
      if (upstream) return { upstream, uri: known.uri };
    }
    return this.find(exposed);
  }

  find(exposed: string): ResourceTarget | undefined {
    const exact = this.catalog.ownerOf(exposed) ?? this.catalog.skills.ownerOf(exposed);
    if (exact) return { upstream: this.#pool.require(exact), uri: exposed };
    const split = splitExposedUri(exposed);
    if (split) {
      const upstream = this.#pool.get(split.server);
      if (upstream?.config.prefix) return { upstream, uri: split.uri };
    }
    const templated = this.catalog.resolve(exposed);
    if (templated) return { upstream: this.#pool.require(templated), uri: exposed };
    return undefined;
  }

  /**
   * Whether an unprefixed URI's owner is known for certain (listed exactly, or inside a listed skill) rather
   * than guessed from a template.
   */
  indexed(exposed: string): boolean {
    return (this.catalog.ownerOf(exposed) ?? this.catalog.skills.ownerOf(exposed)) !== undefined;
  }

  /** The upstream serving an exposed resource template (for completions), and the template it knows. */
  findTemplate(exposed: string): ResourceTarget | undefined {
    const split = splitExposedUri(exposed);
    const prefixed = split ? this.#pool.get(split.server) : undefined;
    if (split && prefixed?.config.prefix) return { upstream: prefixed, uri: split.uri };
    const owner = this.catalog.resolveTemplate(exposed);
    return owner === undefined ? undefined : { upstream: this.#pool.require(owner), uri: exposed };
  }

  /** Whether a listed item of an unprefixed server is the one the router sends its URI to. */
  ownsListed(upstream: UpstreamConnection, uri: string, template: boolean): boolean {
    if (upstream.config.prefix) return true;
    const owner = template ? this.catalog.resolveTemplate(uri) : this.catalog.ownerOf(uri);
    return owner === undefined || owner === upstream.name;
  }
}

/** The refusal of a URI no upstream owns (also what a URI the endpoint does not expose gets). */
export function unownedUri(exposed: string): GatewayError {
  return GatewayError.resourceNotFound(exposed, 'No configured upstream owns this URI.');
}
