import { UriTemplate } from '@modelcontextprotocol/client';
import type { Logger } from './logger.js';
import { asRecords } from './payload.js';

/** What the catalog needs from an upstream: a one-page list call. */
export type ListMethod = 'resources/list' | 'resources/templates/list' | 'prompts/list';
export type ListPage = (method: ListMethod, cursor: string | undefined) => Promise<Record<string, unknown>>;

interface ServerEntry {
  uris: Set<string>;
  templates: { raw: string; template: UriTemplate | undefined }[];
  prompts: Set<string>;
}

const MAX_PAGES = 10_000;

/**
 * Knows which URIs and templates the `"prefix": false` servers expose, so the router can send an
 * unprefixed URI to its owner: exact URIs first, then templates, config order winning collisions.
 */
export class UnprefixedCatalog {
  readonly #order: string[];
  readonly #servers = new Map<string, ServerEntry>();
  readonly #generation = new Map<string, number>();
  #owners = new Map<string, string>();
  readonly #log: Logger;

  constructor(order: string[], logger: Logger) {
    this.#order = order;
    this.#log = logger;
  }

  has(server: string): boolean {
    return this.#order.includes(server);
  }

  /**
   * Re-reads one server's full resource and template lists (and its prompt names when it has prompts,
   * so prompt-argument completions can be routed).
   */
  async refresh(server: string, list: ListPage, options: { prompts?: boolean } = {}): Promise<void> {
    const generation = (this.#generation.get(server) ?? 0) + 1;
    this.#generation.set(server, generation);
    const uris = new Set<string>();
    const templates: ServerEntry['templates'] = [];
    const prompts = new Set<string>();
    await walk(list, 'resources/list', (page) => {
      for (const item of asRecords(page.resources)) if (typeof item?.uri === 'string') uris.add(item.uri);
    });
    await walk(list, 'resources/templates/list', (page) => {
      for (const item of asRecords(page.resourceTemplates)) {
        if (typeof item?.uriTemplate !== 'string') continue;
        templates.push({ raw: item.uriTemplate, template: parseTemplate(item.uriTemplate) });
      }
    }).catch((error) => this.#log.debug('template listing failed', { server, error: String(error) }));
    if (options.prompts) {
      await walk(list, 'prompts/list', (page) => {
        for (const item of asRecords(page.prompts))
          if (typeof item?.name === 'string') prompts.add(item.name);
      }).catch((error) => this.#log.debug('prompt listing failed', { server, error: String(error) }));
    }
    if (this.#generation.get(server) !== generation) return;
    this.#servers.set(server, { uris, templates, prompts });
    this.#rebuild();
  }

  forget(server: string): void {
    this.#generation.set(server, (this.#generation.get(server) ?? 0) + 1);
    if (this.#servers.delete(server)) this.#rebuild();
  }

  /** The server that owns `uri` by exact match, then by template match. */
  resolve(uri: string): string | undefined {
    const exact = this.#owners.get(uri);
    if (exact) return exact;
    for (const server of this.#order) {
      const entry = this.#servers.get(server);
      if (entry?.templates.some((t) => t.template?.match(uri))) return server;
    }
    return undefined;
  }

  /** The server that owns a resource template string (for completion/complete). */
  resolveTemplate(uriTemplate: string): string | undefined {
    for (const server of this.#order) {
      if (this.#servers.get(server)?.templates.some((t) => t.raw === uriTemplate)) return server;
    }
    return undefined;
  }

  /** The unprefixed server offering prompt `name` (for prompt-argument completion), config order first. */
  resolvePrompt(name: string): string | undefined {
    return this.#order.find((server) => this.#servers.get(server)?.prompts.has(name));
  }

  /** Owner of an exact URI, used to keep colliding URIs out of merged listings (config order wins). */
  ownerOf(uri: string): string | undefined {
    return this.#owners.get(uri);
  }

  #rebuild(): void {
    const owners = new Map<string, string>();
    const uriCollisions: { uri: string; winner: string; hidden: string }[] = [];
    for (const server of this.#order) {
      for (const uri of this.#servers.get(server)?.uris ?? []) {
        const first = owners.get(uri);
        if (first === undefined) owners.set(uri, server);
        else uriCollisions.push({ uri, winner: first, hidden: server });
      }
    }
    this.#owners = owners;
    const templateOwners = new Map<string, string>();
    const templateCollisions: { uriTemplate: string; winner: string; hidden: string }[] = [];
    for (const server of this.#order) {
      for (const { raw } of this.#servers.get(server)?.templates ?? []) {
        const first = templateOwners.get(raw);
        if (first === undefined) templateOwners.set(raw, server);
        else if (first !== server)
          templateCollisions.push({ uriTemplate: raw, winner: first, hidden: server });
      }
    }
    // A few named collisions, then a count: a big overlap must not flood the log on every refresh.
    reportCollisions(
      this.#log,
      'URI collision between unprefixed servers; the first in config order wins',
      uriCollisions,
    );
    reportCollisions(
      this.#log,
      'resource template collision between unprefixed servers; the first in config order wins',
      templateCollisions,
    );
  }
}

const NAMED_COLLISIONS = 5;

function reportCollisions(log: Logger, message: string, collisions: Record<string, string>[]): void {
  for (const collision of collisions.slice(0, NAMED_COLLISIONS)) log.warn(message, collision);
  if (collisions.length > NAMED_COLLISIONS) {
    log.warn(`${collisions.length - NAMED_COLLISIONS} more collisions of this kind`, {
      total: collisions.length,
    });
  }
}

async function walk(
  list: ListPage,
  method: ListMethod,
  onPage: (page: Record<string, unknown>) => void,
): Promise<void> {
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await list(method, cursor);
    onPage(page);
    cursor = typeof page.nextCursor === 'string' && page.nextCursor.length > 0 ? page.nextCursor : undefined;
    if (cursor === undefined) return;
  }
}

function parseTemplate(raw: string): UriTemplate | undefined {
  try {
    return new UriTemplate(raw);
  } catch {
    return undefined;
  }
}
