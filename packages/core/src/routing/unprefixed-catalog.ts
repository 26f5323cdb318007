import { type ServerCapabilities, UriTemplate } from '@modelcontextprotocol/client';
import { declaresSkills } from '../features/skills-capability.js';
import { type ListPage, walk } from '../listing/walk.js';
import type { Logger } from '../logger.js';
import { asRecords } from '../payload.js';
import { DEFAULT_UPSTREAM_LIMITS } from '../upstream/limits.js';
import { reportCollisions } from './collisions.js';
import { SkillRoots } from './skill-roots.js';

interface ServerEntry {
  uris: Set<string>;
  templates: { raw: string; template: UriTemplate | undefined }[];
}

/**
 * Knows which URIs, skills and templates the `"prefix": false` servers expose, so the router can send an
 * unprefixed URI to its owner: exact URIs first, then skills, then templates, config order winning
 * collisions.
 */
export class UnprefixedCatalog {
  /** The skills (SEP-2640) each server lists, by root directory. */
  readonly skills: SkillRoots;
  readonly #order: string[];
  readonly #servers = new Map<string, ServerEntry>();
  readonly #generation = new Map<string, number>();
  #owners = new Map<string, string>();
  readonly #log: Logger;
  /** `limits.maxPagesPerList`, read live. */
  readonly #maxPages: () => number;

  constructor(
    order: string[],
    logger: Logger,
    maxPages: () => number = () => DEFAULT_UPSTREAM_LIMITS.maxPagesPerList,
  ) {
    this.#order = order;
    this.#log = logger;
    this.#maxPages = maxPages;
    this.skills = new SkillRoots(order, logger);
  }

  /**
   * Follows a change of the upstream set: `order` is the new list of unprefixed servers; what was known of
   * servers not in `kept` (gone, or reconnecting with a new config) is forgotten.
   */
  setOrder(order: readonly string[], kept: ReadonlySet<string>): void {
    const stale = [...this.#order, ...this.#servers.keys()].filter((s) => !kept.has(s) || !order.includes(s));
    // SkillRoots shares this array: updating it in place keeps both in the same order.
    this.#order.splice(0, this.#order.length, ...order);
    for (const server of new Set(stale)) this.forget(server);
    this.#rebuild();
  }

  has(server: string): boolean {
    return this.#order.includes(server);
  }

  /**
   * Re-reads one server's full resource and template lists, and its skills when its `capabilities`
   * declare the Skills extension.
   */
  async refresh(server: string, list: ListPage, capabilities?: ServerCapabilities): Promise<void> {
    const generation = (this.#generation.get(server) ?? 0) + 1;
    this.#generation.set(server, generation);
    const uris = new Set<string>();
    const templates: ServerEntry['templates'] = [];
    const maxPages = this.#maxPages();
    await walk(
      list,
      'resources/list',
      (page) => {
        for (const item of asRecords(page.resources)) if (typeof item?.uri === 'string') uris.add(item.uri);
      },
      maxPages,
    );
    await walk(
      list,
      'resources/templates/list',
      (page) => {
        for (const item of asRecords(page.resourceTemplates)) {
          if (typeof item?.uriTemplate !== 'string') continue;
          templates.push({ raw: item.uriTemplate, template: parseTemplate(item.uriTemplate) });
        }
      },
      maxPages,
    ).catch((error) => this.#log.debug('template listing failed', { server, error: String(error) }));
    const skills = declaresSkills(capabilities) ? await this.#skillUris(server, list) : [];
    if (this.#generation.get(server) !== generation) return;
    this.#servers.set(server, { uris, templates });
    this.#rebuild();
    if (skills) this.skills.set(server, skills);
  }

  forget(server: string): void {
    this.#generation.set(server, (this.#generation.get(server) ?? 0) + 1);
    this.skills.forget(server);
    if (this.#servers.delete(server)) this.#rebuild();
  }

  /** The `SKILL.md` URIs of a full `skills/list`; undefined (keep what is known) when it fails. */
  async #skillUris(server: string, list: ListPage): Promise<string[] | undefined> {
    const uris: string[] = [];
    try {
      await walk(
        list,
        'skills/list',
        (page) => {
          for (const skill of asRecords(page.skills))
            if (typeof skill?.uri === 'string') uris.push(skill.uri);
        },
        this.#maxPages(),
      );
      return uris;
    } catch (error) {
      this.#log.debug('skill listing failed', { server, error: String(error) });
      return undefined;
    }
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

function parseTemplate(raw: string): UriTemplate | undefined {
  try {
    return new UriTemplate(raw);
  } catch {
    return undefined;
  }
}
