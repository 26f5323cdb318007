import type { RequestContext } from '../../context.js';
import { credentialOwner } from '../../identity-kind.js';
import type { Outcome } from '../../middleware.js';
import { asRecords } from '../../payload.js';
import { GATEWAY_REQUEST_KEY } from '../../state-keys.js';
import { isGatewayTool } from './gateway-tools.js';

/** The key in `ctx.state` of the gateway's own full `tools/list` for a caller: search mode stays out of it. */
export const FULL_TOOL_LIST_KEY = 'switchyard.full-tool-list';

/** How long a caller's tools are trusted without a catalog change (a policy may hinge on time). */
const FRESH_MS = 30_000;
/** The most callers kept at once (the oldest goes first). */
const MAX_CALLERS = 1000;
/** A listing that does not end is cut off here (the merged listing pages are bounded anyway). */
const MAX_PAGES = 1000;
const LISTING_TIMEOUT_MS = 30_000;

type Tools = ReadonlyMap<string, Record<string, unknown>>;

/**
 * The tools one caller may use on one endpoint: what its own `tools/list` answers, through every plugin
 * (access rules, pins' quarantine, curation, the virtual server), walked once per catalog change and
 * kept. Tool search returns and calls nothing else, so it hides exactly what `tools/list` hides; and not
 * an upstream's tool named `search_tools` or `call_tool`, which the gateway's own shadow (`isGatewayTool`).
 */
export class CallerTools {
  readonly #list: (ctx: RequestContext) => Promise<Outcome>;
  readonly #cache = new Map<string, { generation: number; at: number; tools: Promise<Tools> }>();
  #generation = 0;

  /** `list` runs one `tools/list` request through the gateway (its plugins included). */
  constructor(list: (ctx: RequestContext) => Promise<Outcome>) {
    this.#list = list;
  }

  /** The catalog, a policy or the endpoints changed: every caller's tools are listed anew. */
  invalidate(): void {
    this.#generation += 1;
  }

  /** The tools `ctx`'s caller may use on `ctx`'s endpoint, by exposed name, as its `tools/list` shows them. */
  of(ctx: RequestContext): Promise<Tools> {
    const key = callerKey(ctx);
    const now = Date.now();
    const cached = this.#cache.get(key);
    if (cached && cached.generation === this.#generation && now - cached.at < FRESH_MS) return cached.tools;
    const walked = this.#walk(ctx);
    const tools = walked.then((w) => w.tools);
    this.#cache.delete(key);
    this.#cache.set(key, { generation: this.#generation, at: now, tools });
    if (this.#cache.size > MAX_CALLERS) this.#cache.delete(this.#cache.keys().next().value as string);
    // A listing that failed, or ended at a page that failed, is not kept: the next search lists again.
    const forget = () => this.#cache.get(key)?.tools === tools && this.#cache.delete(key);
    walked.then((w) => w.complete || forget(), forget);
    return tools;
  }

  /** The caller's tools, and whether every page was read (else they are what the pages before the failed one held). */
  async #walk(ctx: RequestContext): Promise<{ tools: Tools; complete: boolean }> {
    const tools = new Map<string, Record<string, unknown>>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const outcome = await this.#list(listingContext(ctx, cursor));
      // A caller refused tools/list itself may use no tool (none it could list on the pages it got).
      if (!outcome.ok) return { tools, complete: false };
      for (const tool of asRecords(outcome.result.tools)) {
        if (typeof tool.name === 'string' && !isGatewayTool(tool.name)) tools.set(tool.name, tool);
      }
      const next = outcome.result.nextCursor;
      if (typeof next !== 'string' || next.length === 0) break;
      cursor = next;
    }
    return { tools, complete: true };
  }
}

/**
 * Callers who see the same tools: one endpoint, one era, one identity (its kind too: personal upstreams
 * list tools only to whoever connected them, per kind of identity) with its groups.
 */
function callerKey(ctx: RequestContext): string {
  const { identity } = ctx;
  return [
    ctx.view?.name ?? '',
    ctx.client?.era ?? 'legacy',
    credentialOwner(identity),
    ...[...identity.groups].sort(),
  ].join('\u0000');
}

/** The gateway's own `tools/list` for `ctx`'s caller: same session, endpoint and client, its own signal. */
function listingContext(ctx: RequestContext, cursor: string | undefined): RequestContext {
  return {
    method: 'tools/list',
    params: cursor === undefined ? {} : { cursor },
    session: ctx.session,
    identity: ctx.identity,
    signal: AbortSignal.timeout(LISTING_TIMEOUT_MS),
    notifyRelated: async () => {},
    state: new Map<string, unknown>([
      [FULL_TOOL_LIST_KEY, true],
      [GATEWAY_REQUEST_KEY, true],
    ]),
    // The client as it declared itself, without what its request carried (a retry's answers and state).
    ...(ctx.client ? { client: { era: ctx.client.era, capabilities: ctx.client.capabilities } } : {}),
    ...(ctx.view ? { view: ctx.view } : {}),
  };
}
