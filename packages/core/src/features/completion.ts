import { cancellationOf } from '../cancellation.js';
import type { RequestContext, RequestTarget } from '../context.js';
import { GatewayError } from '../errors.js';
import { isRecord } from '../payload.js';
import { type NamedCatalog, unknownNamed } from '../routing/named-catalog.js';
import type { ResourceRouter } from '../routing/resource-router.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import { originOf } from '../upstream/origin.js';
import type { UpstreamPool } from '../upstream/pool.js';
import type { Feature } from './feature.js';
import { withoutProgressToken } from './params.js';

export interface CompletionDeps {
  pool: UpstreamPool;
  router: ResourceRouter;
  prompts: NamedCatalog;
}

/** Who completes a `ref`: the upstream, and the ref as that upstream knows it. */
interface CompletionRoute {
  upstream: UpstreamConnection;
  ref: Record<string, unknown>;
  target: RequestTarget;
}

/**
 * `completion/complete`, routed by its `ref`: a resource template by its exposed URI template, a prompt
 * by its exposed name. An upstream without the completions capability completes nothing.
 */
export function completionFeature({ pool, router, prompts }: CompletionDeps): Feature & {
  /** Where a completion for `ref` goes, exactly as `completion/complete` routes it. */
  route(ref: unknown): RequestTarget | undefined;
} {
  const find = (ref: unknown): CompletionRoute | undefined => {
    if (!isRecord(ref)) return undefined;
    if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      const found = router.findTemplate(ref.uri);
      return (
        found && {
          upstream: found.upstream,
          ref: { ...ref, uri: found.uri },
          target: { kind: 'template', upstream: found.upstream.name, uri: found.uri, exposed: ref.uri },
        }
      );
    }
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      const found = prompts.index.resolve(ref.name);
      return (
        found && {
          upstream: pool.require(found.upstream),
          ref: { ...ref, name: found.name },
          target: { kind: 'prompt', upstream: found.upstream, name: found.name, exposed: ref.name },
        }
      );
    }
    return undefined;
  };

  const complete = async (ctx: RequestContext) => {
    const ref = ctx.params.ref;
    let route = find(ref);
    if (!route && isRecord(ref) && ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      // Not indexed yet: the prompt catalog refreshes, or names the prompts that do exist.
      await prompts.locate(ref.name);
      route = find(ref);
    }
    if (!route) throw unknownCompletionRef(ref);
    checkCompletionArgument(ctx.params);
    const { upstream } = route;
    if (upstream.state === 'ready' && !upstream.capabilities?.completions) {
      return { completion: { values: [], hasMore: false } };
    }
    return upstream.request(
      'completion/complete',
      { ...withoutProgressToken(ctx.params), ref: route.ref },
      { signal: cancellationOf(ctx), origin: originOf(ctx) },
    );
  };

  return {
    handlers: { 'completion/complete': complete },
    target: (ctx) => find(ctx.params.ref)?.target,
    route: (ref) => find(ref)?.target,
  };
}

/**
 * The refusal of a completion `ref` nothing (this endpoint exposes) answers, alike on every endpoint and
 * for a hidden and an unknown one: a prompt's is that of `prompts/get` of the name (`prompt_not_found`).
 */
export function unknownCompletionRef(ref: unknown): GatewayError {
  if (isRecord(ref) && ref.type === 'ref/prompt' && typeof ref.name === 'string') {
    return unknownNamed('prompts', ref.name);
  }
  if (isRecord(ref) && ref.type === 'ref/resource' && typeof ref.uri === 'string') {
    return GatewayError.invalidParams(
      `Unknown resource template '${ref.uri}': completion/complete completes the arguments of a uriTemplate from resources/templates/list.`,
      { ref },
    );
  }
  return GatewayError.invalidParams(
    'completion/complete needs params.ref: {"type":"ref/resource","uri":<a uriTemplate from resources/templates/list>} or {"type":"ref/prompt","name":<a name from prompts/list>}.',
    { ref },
  );
}

/** The argument being completed, and the values of the others already chosen, as the spec shapes them. */
function checkCompletionArgument(params: Record<string, unknown>): void {
  const { argument, context } = params;
  if (!isRecord(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    throw GatewayError.invalidParams(
      'completion/complete needs params.argument: {"name":<the argument being completed>,"value":<what was typed so far>}.',
      { argument },
    );
  }
  if (context === undefined) return;
  const values = isRecord(context) ? context.arguments : undefined;
  if (
    !isRecord(context) ||
    (values !== undefined && !(isRecord(values) && Object.values(values).every((v) => typeof v === 'string')))
  ) {
    throw GatewayError.invalidParams(
      'completion/complete params.context, when given, must be {"arguments":{<name>:<value string>,…}}.',
      { context },
    );
  }
}
