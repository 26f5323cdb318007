import {
  GatewayError,
  isRecord,
  type Outcome,
  type PluginGateway,
  type RequestContext,
  type UpstreamCallContext,
  uriReadings,
} from '@switchyard/core';
import type { AccessPolicy } from './policy.js';
import { skillFileUris } from './skills.js';
import { ITEM_METHOD } from './targets.js';

/** What filtering makes of one listed item: shown, hidden by the rules, or not exposed at all (curated). */
type Verdict = 'allow' | 'deny' | 'unexposed';

/** One list kind: where its items live in a page, and how one item is decided. */
interface ListedKind {
  readonly field: string;
  decide(request: RequestContext, upstream: string, item: Record<string, unknown>): Verdict;
}

/**
 * Filters the upstream pages of the list kinds down to what the caller may use: each resource and
 * template is decided as a `resources/read` of it, each tool as a `tools/call`, each prompt as a
 * `prompts/get`, each skill as a `resources/read` of every file it names, on the upstream that listed
 * it. One loop serves every kind.
 */
export class ListFilter {
  readonly #policy: AccessPolicy;
  readonly #kinds: Readonly<Record<string, ListedKind>>;
  readonly #hidden: (method: string, count: number) => void;

  constructor(policy: AccessPolicy, gateway: PluginGateway, hidden: (method: string, count: number) => void) {
    this.#policy = policy;
    this.#hidden = hidden;
    const resource = (field: string, uriField: string, template: boolean): ListedKind => ({
      field,
      decide: (request, upstream, item) => {
        const raw = item[uriField];
        if (typeof raw !== 'string') return 'deny';
        const readings = uriReadings(gateway.exposeUri(upstream, raw), { template });
        const subject = { identity: request.identity, method: ITEM_METHOD.resource, server: upstream };
        return policy.decideReadings(subject, readings).effect;
      },
    });
    const named = (kind: 'tool' | 'prompt'): ListedKind => ({
      field: `${kind}s`,
      decide: (request, upstream, item) => {
        if (typeof item.name !== 'string') return 'deny';
        const exposed = gateway.exposeName(`${kind}s`, upstream, item.name);
        if (exposed === undefined) return 'unexposed';
        // Arguments come with the call or get, decided then: a condition needing them hides nothing here.
        const subject = {
          identity: request.identity,
          method: ITEM_METHOD[kind],
          server: upstream,
          arguments: 'pending' as const,
        };
        return policy.decide({ ...subject, [kind]: exposed }).effect;
      },
    });
    const read = resource('resources', 'uri', false);
    // A skill entry names its SKILL.md and every file: shown only when the caller may read them all.
    const skill: ListedKind = {
      field: 'skills',
      decide: (request, upstream, item) =>
        skillFileUris(item).every((uri) => read.decide(request, upstream, { uri }) === 'allow')
          ? 'allow'
          : 'deny',
    };
    this.#kinds = {
      'resources/list': read,
      'resources/templates/list': resource('resourceTemplates', 'uriTemplate', true),
      'tools/list': named('tool'),
      'prompts/list': named('prompt'),
      'skills/list': skill,
    };
  }

  /** Whether `method` is a list call this filter handles. */
  handles(method: string): boolean {
    return Object.hasOwn(this.#kinds, method);
  }

  /**
   * Keeps only the items `request`'s caller may use, and fetches the upstream's following pages while
   * filtering leaves a page empty, so a client never gets an empty page with a cursor because of
   * filtering (up to `maxSkippedPages` further pages per call). The first page is `next()`; each
   * following one is `call.repeat` with the upstream's cursor (through the layers inside this one). An
   * error outcome, of any page, is the call's.
   */
  async filter(
    call: UpstreamCallContext,
    request: RequestContext,
    next: () => Promise<Outcome>,
  ): Promise<Outcome> {
    const kind = this.#kinds[call.method];
    if (kind === undefined) return next();
    let outcome = await next();
    for (let skipped = 0; ; skipped++) {
      if (!outcome.ok) return outcome;
      const page = outcome.result;
      const items = Array.isArray(page[kind.field]) ? (page[kind.field] as unknown[]) : [];
      const kept: unknown[] = [];
      let hidden = 0;
      for (const item of items) {
        const verdict = isRecord(item) ? kind.decide(request, call.upstream, item) : 'deny';
        if (verdict === 'allow') kept.push(item);
        else if (verdict === 'deny') hidden += 1;
      }
      if (hidden > 0) this.#hidden(call.method, hidden);
      const cursor = page.nextCursor;
      const more = typeof cursor === 'string' && cursor.length > 0;
      if (kept.length > 0 || !more || skipped >= this.#policy.maxSkippedPages) {
        return { ok: true, result: this.#filtered(page, kind.field, kept) };
      }
      if (request.signal.aborted) return { ok: false, error: GatewayError.cancelled(request.method) };
      outcome = await call.repeat({ ...call.params, cursor });
    }
  }

  /** The page with only `kept`; a page whose content depends on the caller must not be cached as public. */
  #filtered(page: Record<string, unknown>, field: string, kept: unknown[]) {
    const result: Record<string, unknown> = { ...page, [field]: kept };
    if (this.#policy.identityDependent && typeof page.cacheScope === 'string') result.cacheScope = 'private';
    return result;
  }
}
