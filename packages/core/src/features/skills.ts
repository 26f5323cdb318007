import type { ServerCapabilities } from '@modelcontextprotocol/client';
import { SKILLS_EXTENSION_ID } from '@modelcontextprotocol/client/ext/skills';
import type { RequestContext, RequestTarget } from '../context.js';
import { ErrorCode, GatewayError } from '../errors.js';
import type { ListKind, MergedListing } from '../listing/merged.js';
import { isRecord } from '../payload.js';
import type { ResourceRouter, ResourceTarget } from '../routing/resource-router.js';
import type { UpstreamPool } from '../upstream/pool.js';
import type { Feature } from './feature.js';
import { requireUri } from './params.js';
import { exposeDirectory, exposeSkillEntry } from './skill-entries.js';
import { declaresDirectoryRead, declaresSkills } from './skills-capability.js';
import type { UpstreamCaller } from './upstream-caller.js';

export interface SkillsDeps {
  pool: UpstreamPool;
  router: ResourceRouter;
  listing: MergedListing;
  call: UpstreamCaller;
}

type Declares = (capabilities: ServerCapabilities | undefined) => boolean;

/**
 * The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): a merged `skills/list` over every
 * upstream that declares it, and `skills/get` and `resources/directory/read` routed by URI like a read.
 * A prefixed upstream's skill URIs are `<server>+skill://…` like its other resource URIs. An
 * unprefixed URI the index does not place (a skill no listing names) is asked of each unprefixed
 * upstream that serves skills, in config order, and the one that answers is remembered.
 */
export function skillsFeature({ pool, router, listing, call }: SkillsDeps): Feature {
  const skills: ListKind = {
    method: 'skills/list',
    field: 'skills',
    cursorKind: 's',
    feature: declaresSkills,
    expose(upstream, item) {
      if (typeof item.uri !== 'string') return undefined;
      const exposed = exposeSkillEntry(upstream, item);
      // Listed once, under the upstream its URI routes to (colliding unprefixed skills: config order wins).
      const owner = router.find(exposed.uri as string)?.upstream;
      return owner === undefined || owner === upstream ? exposed : undefined;
    },
  };

  /** -32601 unless some upstream declared what the method needs (as the gateway's capabilities say). */
  const requireServed = (method: string, declares: Declares): void => {
    if (pool.ordered.some((u) => declares(u.knownCapabilities))) return;
    throw new GatewayError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method}. No upstream of this gateway declares the ${SKILLS_EXTENSION_ID} extension${declares === declaresSkills ? '' : ' with directoryRead'}.`,
    );
  };

  /**
   * Where a URI may be served: its route when that is certain (prefixed, or indexed); else the route's
   * template guess, then every other unprefixed upstream that declared `declares` when last connected.
   */
  const candidates = (exposed: string, declares: Declares): ResourceTarget[] => {
    const found = router.find(exposed);
    if (found && (found.upstream.config.prefix || router.indexed(exposed))) {
      const { upstream } = found;
      // Not connected: asking it gives the client the reason (unavailable), not a false "not served".
      return upstream.state !== 'ready' || declares(upstream.capabilities) ? [found] : [];
    }
    const unprefixed = pool.ordered.filter((u) => !u.config.prefix && u !== found?.upstream);
    return [...(found ? [found.upstream] : []), ...unprefixed]
      .filter((u) => declares(u.knownCapabilities))
      .map((upstream) => ({ upstream, uri: exposed }));
  };

  /** Sends to each candidate in turn until one serves the URI (-32602 means "not mine"). */
  const firstServing = async (
    ctx: RequestContext,
    exposed: string,
    targets: ResourceTarget[],
    notServed: string,
  ) => {
    let failure: GatewayError | undefined;
    let refusal: { upstream: string; message: string } | undefined;
    for (const target of targets) {
      ctx.target = resourceTarget(target, exposed);
      try {
        return { target, result: await call(ctx, target.upstream, { ...ctx.params, uri: target.uri }) };
      } catch (error) {
        const e = GatewayError.fromUnknown(error);
        if (ctx.signal.aborted) throw e;
        if (e.code !== ErrorCode.InvalidParams) failure ??= e;
        else refusal ??= { upstream: target.upstream.name, message: e.message };
      }
    }
    if (failure) throw failure;
    // One upstream's own words help (a bad cursor, say); several refusals only mean "nobody serves it".
    const detail =
      targets.length === 1 && refusal ? ` Upstream '${refusal.upstream}': ${refusal.message}` : '';
    throw GatewayError.invalidParams(`${notServed}${detail}`, {
      uri: exposed,
      ...(targets.length === 1 && refusal ? { upstream: refusal.upstream } : {}),
    });
  };

  const get = async (ctx: RequestContext) => {
    requireServed(ctx.method, declaresSkills);
    const exposed = requireUri(ctx.params);
    const { target, result } = await firstServing(
      ctx,
      exposed,
      candidates(exposed, declaresSkills),
      `No skill is served at ${exposed}. List skills (skills/list) to see the skills this gateway exposes.`,
    );
    if (!target.upstream.config.prefix && !router.indexed(exposed)) {
      router.catalog.skills.learn(target.upstream.name, exposed);
    }
    const skill = isRecord(result.skill) ? exposeSkillEntry(target.upstream, result.skill) : result.skill;
    return withCacheFields({ ...result, skill });
  };

  const readDirectory = async (ctx: RequestContext) => {
    requireServed(ctx.method, declaresDirectoryRead);
    const exposed = requireUri(ctx.params);
    const { target, result } = await firstServing(
      ctx,
      exposed,
      candidates(exposed, declaresDirectoryRead),
      `${exposed} is not a directory resource served by this gateway.`,
    );
    return withCacheFields(exposeDirectory(target.upstream, result));
  };

  return {
    handlers: {
      'skills/list': async (ctx) => {
        requireServed(ctx.method, declaresSkills);
        return withCacheFields(await listing.list(skills, ctx));
      },
      'skills/get': get,
      'resources/directory/read': readDirectory,
    },
    target(ctx): RequestTarget | undefined {
      const exposed = ctx.params.uri;
      if (ctx.method === 'skills/list' || typeof exposed !== 'string') return undefined;
      const found = router.find(exposed);
      return found && resourceTarget(found, exposed);
    },
  };
}

function resourceTarget(target: ResourceTarget, exposed: string): RequestTarget {
  return { kind: 'resource', upstream: target.upstream.name, uri: target.uri, exposed };
}

/**
 * The extension's results are cacheable (`ttlMs` and `cacheScope` required in 2026-07-28): a legacy
 * upstream sends none, which means "do not cache" (legacy sessions never see these fields).
 */
function withCacheFields(result: Record<string, unknown>): Record<string, unknown> {
  return { ttlMs: 0, cacheScope: 'private', ...result };
}
