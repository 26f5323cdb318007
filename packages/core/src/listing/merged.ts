import type { ServerCapabilities } from '@modelcontextprotocol/client';
import { mergeCacheHints } from '../cache-hints.js';
import { cancellationOf } from '../cancellation.js';
import type { UpstreamConfig } from '../config.js';
import type { RequestContext } from '../context.js';
import { MAX_MERGED_CURSOR_LENGTH, MergedCursorCodec } from '../cursor.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../logger.js';
import { asRecords } from '../payload.js';
import { RateLimitedLog } from '../rate-limited-log.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import { originOf } from '../upstream/origin.js';
import { offered, type UpstreamFeature, type UpstreamPool } from '../upstream/pool.js';
import { listedIn } from '../views/listed-in.js';
import { advance, type CutOff, MAX_UPSTREAM_CURSOR_LENGTH, type UpstreamPosition } from './page-guard.js';
import type { ListMethod } from './walk.js';

/** Key under `_meta` of merged list results naming upstreams whose entries are missing from the page. */
export const UNAVAILABLE_META_KEY = 'switchyard/unavailable';

/**
 * Key under `_meta` naming upstreams cut off from this enumeration (DESIGN §11): their cursor repeated or
 * was too long to carry, or they reached `limits.maxPagesPerList` pages. Their later pages are not listed.
 */
export const TRUNCATED_META_KEY = 'switchyard/truncated';

const CUT_OFF_WHY: Record<CutOff, string> = {
  'repeated-cursor': 'its nextCursor repeats one it gave before in this enumeration',
  'page-limit': 'it reached limits.maxPagesPerList pages in this enumeration',
  'long-cursor': `its nextCursor is longer than ${MAX_UPSTREAM_CURSOR_LENGTH} characters`,
  'cursor-room': `the upstreams' cursors together would make the merged cursor longer than ${MAX_MERGED_CURSOR_LENGTH} characters`,
};

/** One of the merged list kinds: what to ask each upstream and how its items are exposed. */
export interface ListKind {
  readonly method: ListMethod;
  /** The result field holding the items (`resources`, `resourceTemplates`, `tools`, `prompts`, `skills`). */
  readonly field: string;
  /** Tags cursors, so a cursor of one kind is refused by another. */
  readonly cursorKind: string;
  /**
   * The capability an upstream needs for this kind (upstreams without it are skipped): a server feature,
   * or a test of its capabilities (an extension such as skills).
   */
  readonly feature: UpstreamFeature | ((capabilities: ServerCapabilities | undefined) => boolean);
  /**
   * The field that names an item within one upstream (`name`), when a name may be listed once only: an
   * item of an upstream under a name it already listed on the page is left out (and logged).
   */
  readonly key?: string;
  /** The item as clients see it (renamed, rewritten), or undefined to leave it out (curated, colliding). */
  expose(upstream: UpstreamConnection, item: Record<string, unknown>): Record<string, unknown> | undefined;
}

/**
 * The one merged-listing engine behind `resources/list`, `resources/templates/list`, `tools/list`,
 * `prompts/list` and `skills/list` (DESIGN §5): every upstream that still has a page is asked
 * concurrently, one downstream page holds the next page of each, and the stateless cursor carries every
 * upstream's own cursor under an HMAC. An upstream that fails is left out of the page and named in
 * `_meta`.
 */
/**
 * What merged cursors are signed with: the upstream set in order — each one's name, prefix setting and
 * where it is (its transport: a page cursor of a server swapped for another under the same name means
 * nothing to the new one) — and the configured secret. Gateways with the same config share cursors, also
 * when their config files sit in different folders: a stdio server's working directory (by default the
 * config file's folder) is where it runs, not which server it is, so it is left out.
 */
export function cursorKeyMaterial(
  upstreams: readonly { name: string; config: Pick<UpstreamConfig, 'prefix' | 'transport'> }[],
  secret: string,
): string {
  const where = (transport: UpstreamConfig['transport']) =>
    transport.kind === 'stdio' ? { ...transport, cwd: undefined } : transport;
  return JSON.stringify([upstreams.map((u) => [u.name, u.config.prefix, where(u.config.transport)]), secret]);
}

export class MergedListing {
  readonly #pool: UpstreamPool;
  readonly #secret: string;
  #cursors: MergedCursorCodec;
  readonly #log: Logger;
  readonly #cutLog: RateLimitedLog;

  constructor(pool: UpstreamPool, cursorSecret: string | undefined, logger: Logger) {
    this.#pool = pool;
    this.#log = logger;
    this.#cutLog = new RateLimitedLog(logger);
    this.#secret = cursorSecret ?? '';
    this.#cursors = this.#codec();
  }

  /**
   * Re-keys cursors to the pool's current upstream set (after a reload changed it): a cursor issued
   * before then is refused with invalid_cursor, and the client lists again from the start.
   */
  rekey(): void {
    this.#cursors = this.#codec();
  }

  #codec(): MergedCursorCodec {
    return new MergedCursorCodec(cursorKeyMaterial(this.#pool.ordered, this.#secret));
  }

  async list(kind: ListKind, ctx: RequestContext): Promise<Record<string, unknown>> {
    const { state, pinnedScope } = this.#start(kind, ctx.params.cursor);
    // A virtual server lists only its servers' items, whatever upstreams a cursor names.
    const view = ctx.view?.whole === false ? ctx.view : undefined;
    const participants = this.#pool.ordered.filter(
      (u) => state.has(u.name) && (!view || view.includes(u.name)),
    );
    const origin = originOf(ctx);
    const cancel = cancellationOf(ctx);
    const settled = await Promise.allSettled(
      participants.map((u) => {
        if (u.state === 'ready' && !offersKind(kind, u.capabilities)) return Promise.resolve(undefined);
        const upstreamCursor = state.get(u.name)?.cursor;
        return u.request(kind.method, upstreamCursor === undefined ? {} : { cursor: upstreamCursor }, {
          signal: cancel,
          origin,
        });
      }),
    );
    if (cancel.aborted) throw GatewayError.aborted(kind.method, cancel.reason);
    const items: unknown[] = [];
    const next: Record<string, UpstreamPosition> = {};
    const unavailable: string[] = [];
    const truncated: string[] = [];
    const maxPages = this.#pool.limits.maxPagesPerList;
    const pages: Record<string, unknown>[] = [];
    participants.forEach((u, i) => {
      const outcome = settled[i]!;
      if (outcome.status === 'rejected') {
        unavailable.push(u.name);
        this.#log.warn('upstream omitted from merged listing', {
          upstream: u.name,
          method: kind.method,
          error: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason),
        });
        return;
      }
      const page = outcome.value;
      if (page === undefined) return;
      pages.push(page);
      const listed = new Set<unknown>();
      for (const raw of asRecords(page[kind.field])) {
        const item = kind.expose(u, raw);
        if (item === undefined || (view && !listedIn(view, kind.field, u.name, item))) continue;
        if (kind.key !== undefined && !this.#firstOnPage(kind, u.name, item[kind.key], listed)) continue;
        items.push(item);
      }
      const nextCursor =
        typeof page.nextCursor === 'string' && page.nextCursor.length > 0 ? page.nextCursor : undefined;
      const { position, cut } = advance(state.get(u.name), nextCursor, maxPages);
      if (position) next[u.name] = position;
      if (cut) this.#cutOff(kind, u.name, cut, truncated);
    });
    const result: Record<string, unknown> = { [kind.field]: items };
    const hints = mergeCacheHints(pages);
    let scope: string | undefined;
    if (hints || pinnedScope) {
      // A page never widens the scope the enumeration started with; a private contribution narrows it.
      scope = hints?.cacheScope === 'public' && pinnedScope !== 'private' ? 'public' : 'private';
      result.ttlMs = hints?.ttlMs ?? 0;
      result.cacheScope = scope;
    }
    if (Object.keys(next).length > 0) {
      const { cursor, dropped } = this.#cursors.encodeWithin(kind.cursorKind, { positions: next, scope });
      for (const name of dropped) this.#cutOff(kind, name, 'cursor-room', truncated);
      if (cursor !== undefined) result.nextCursor = cursor;
    }
    const meta: Record<string, unknown> = {};
    if (unavailable.length > 0) meta[UNAVAILABLE_META_KEY] = unavailable;
    // In config order, those cut off for the merged cursor's room too.
    if (truncated.length > 0) {
      meta[TRUNCATED_META_KEY] = participants.map((u) => u.name).filter((n) => truncated.includes(n));
    }
    if (Object.keys(meta).length > 0) result._meta = meta;
    return result;
  }

  /** `upstream`'s later pages are not listed: named in `truncated` and logged (rate-limited). */
  #cutOff(kind: ListKind, upstream: string, cut: CutOff, truncated: string[]): void {
    truncated.push(upstream);
    this.#cutLog.warn(`${upstream} ${kind.method}`, 'upstream cut off from a merged listing', {
      upstream,
      method: kind.method,
      why: CUT_OFF_WHY[cut],
    });
  }

  /** Whether `upstream` lists `name` first on this page (`listed` so far); a repeat is logged (rate-limited). */
  #firstOnPage(kind: ListKind, upstream: string, name: unknown, listed: Set<unknown>): boolean {
    if (!listed.has(name)) {
      listed.add(name);
      return true;
    }
    this.#cutLog.warn(
      `${upstream} ${kind.method} twice`,
      'upstream listed one name twice; the first is listed',
      {
        upstream,
        method: kind.method,
        name,
      },
    );
    return false;
  }

  /** The per-upstream state a page starts from: every upstream for the first page, else the cursor's. */
  #start(
    kind: ListKind,
    cursor: unknown,
  ): { state: Map<string, UpstreamPosition | undefined>; pinnedScope: string | undefined } {
    if (cursor === undefined || cursor === null) {
      return { state: new Map(this.#pool.names.map((name) => [name, undefined])), pinnedScope: undefined };
    }
    const { positions, scope } = this.#cursors.decode(kind.cursorKind, cursor);
    // The spec requires one cacheScope for every page of a listing (modern era): the first page decides
    // it and the cursor carries it.
    if (scope !== undefined && scope !== 'public' && scope !== 'private') throw GatewayError.invalidCursor();
    for (const name of Object.keys(positions)) if (!this.#pool.get(name)) throw GatewayError.invalidCursor();
    return { state: new Map(Object.entries(positions)), pinnedScope: scope };
  }
}

function offersKind(kind: ListKind, capabilities: ServerCapabilities | undefined): boolean {
  return typeof kind.feature === 'function'
    ? kind.feature(capabilities)
    : offered(capabilities, kind.feature);
}
