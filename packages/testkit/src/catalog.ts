import type {
  BlobResourceContents,
  Resource,
  ResourceTemplateType,
  TextResourceContents,
} from '@modelcontextprotocol/server';
import type { ResolvedTestServerOptions } from './options.js';

const TEXT_MIME = 'text/plain';
const BLOB_MIME = 'application/octet-stream';
const MAX_COMPLETIONS = 100;

/**
 * The deterministic resource model of a test server: N static resources, M templates, and per-URI
 * text overrides. Reads the live options object, so `setResourceCount` and friends take effect at once.
 */
export class ResourceCatalog {
  readonly #options: ResolvedTestServerOptions;
  readonly #texts = new Map<string, string>();
  readonly #fixtures: Fixtures;

  constructor(options: ResolvedTestServerOptions) {
    this.#options = options;
    this.#fixtures = options.fixture === 'conformance' ? CONFORMANCE_FIXTURES : NO_FIXTURES;
  }

  get resourceCount(): number {
    return this.#options.resources + this.#fixtures.resources.length;
  }

  get templateCount(): number {
    return this.#options.templates + this.#fixtures.templates.length;
  }

  /** The fixture's prompts (generated prompts live in the PromptCatalog). */
  get prompts(): readonly FixturePrompt[] {
    return this.#fixtures.prompts;
  }

  /** Overrides the content of `uri` (static resource, template match, or any other URI, which becomes readable). */
  setText(uri: string, text: string): void {
    this.#texts.set(uri, text);
  }

  uriOf(index: number): string {
    return `${this.#options.uriBase}r/${index}`;
  }

  isBlob(index: number): boolean {
    const k = this.#options.blobEvery;
    return k > 0 && index % k === k - 1;
  }

  resourceAt(index: number): Resource {
    const fixture = this.#fixtures.resources[index - this.#options.resources];
    if (fixture) return fixture.resource;
    return {
      uri: this.uriOf(index),
      name: `r${index}`,
      mimeType: this.isBlob(index) ? BLOB_MIME : TEXT_MIME,
    };
  }

  uriTemplateOf(index: number): string {
    const base = this.#options.uriBase;
    return index === 0 ? `${base}items/{id}` : `${base}t${index}/{id}`;
  }

  templateAt(index: number): ResourceTemplateType {
    const fixture = this.#fixtures.templates[index - this.#options.templates];
    if (fixture) return fixture.template;
    return { uriTemplate: this.uriTemplateOf(index), name: `t${index}`, mimeType: TEXT_MIME };
  }

  /** The default text of static resource `index`, padded to `payloadBytes`. */
  defaultText(index: number): string {
    return `resource ${index}`.padEnd(this.#options.payloadBytes, '.');
  }

  /** Index of the static resource `uri` names, or undefined. */
  staticIndex(uri: string): number | undefined {
    const prefix = `${this.#options.uriBase}r/`;
    if (!uri.startsWith(prefix)) return undefined;
    const rest = uri.slice(prefix.length);
    if (!/^(0|[1-9]\d{0,9})$/.test(rest)) return undefined;
    const index = Number(rest);
    return index < this.#options.resources ? index : undefined;
  }

  /** The template match of `uri`: which template and the decoded `{id}`. */
  matchTemplate(uri: string): { template: number; id: string } | undefined {
    const base = this.#options.uriBase;
    if (!uri.startsWith(base)) return undefined;
    const match = /^(?:items|t([1-9]\d{0,9}))\/([^/]+)$/.exec(uri.slice(base.length));
    if (match?.[2] === undefined) return undefined;
    const template = match[1] === undefined ? 0 : Number(match[1]);
    if (template >= this.#options.templates) return undefined;
    try {
      return { template, id: decodeURIComponent(match[2]) };
    } catch {
      return undefined;
    }
  }

  /** The contents of `uri`, or undefined when nothing lives there. */
  read(uri: string): TextResourceContents | BlobResourceContents | undefined {
    const override = this.#texts.get(uri);
    const fixture = this.#fixtures.resources.find((f) => f.resource.uri === uri);
    if (fixture)
      return override === undefined ? fixture.contents : { uri, mimeType: TEXT_MIME, text: override };
    for (const t of this.#fixtures.templates) {
      const contents = t.read(uri);
      if (contents) return contents;
    }
    const index = this.staticIndex(uri);
    if (index !== undefined) {
      const text = override ?? this.defaultText(index);
      return this.isBlob(index)
        ? { uri, mimeType: BLOB_MIME, blob: Buffer.from(text, 'utf8').toString('base64') }
        : { uri, mimeType: TEXT_MIME, text };
    }
    const match = this.matchTemplate(uri);
    if (match !== undefined) return { uri, mimeType: TEXT_MIME, text: override ?? `item ${match.id}` };
    if (override !== undefined) return { uri, mimeType: TEXT_MIME, text: override };
    return undefined;
  }

  /** Resource 0 (the first listed) and its contents, or undefined when there are no resources. */
  first(): { resource: Resource; contents: TextResourceContents | BlobResourceContents } | undefined {
    if (this.resourceCount === 0) return undefined;
    const resource = this.resourceAt(0);
    const contents = this.read(resource.uri);
    return contents === undefined ? undefined : { resource, contents };
  }

  /** Completion values for argument `value` of template `uriTemplate` (empty for unknown templates). */
  complete(uriTemplate: string, value: string): { values: string[]; total: number; hasMore: boolean } {
    let known = this.#fixtures.templates.some((t) => t.template.uriTemplate === uriTemplate);
    for (let j = 0; j < this.#options.templates && !known; j++) known = this.uriTemplateOf(j) === uriTemplate;
    return this.#values(known, value);
  }

  /** Completion values for `value` when the completed argument is `known`, else none. */
  completeKnown(known: boolean, value: string): { values: string[]; total: number; hasMore: boolean } {
    return this.#values(known, value);
  }

  #values(known: boolean, value: string): { values: string[]; total: number; hasMore: boolean } {
    const all = known ? this.#options.completions.filter((c) => c.startsWith(value)) : [];
    return {
      values: all.slice(0, MAX_COMPLETIONS),
      total: all.length,
      hasMore: all.length > MAX_COMPLETIONS,
    };
  }
}

export interface FixturePrompt {
  name: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
}

interface Fixtures {
  resources: { resource: Resource; contents: TextResourceContents | BlobResourceContents }[];
  templates: {
    template: ResourceTemplateType;
    read(uri: string): TextResourceContents | undefined;
  }[];
  prompts: FixturePrompt[];
}

const NO_FIXTURES: Fixtures = { resources: [], templates: [], prompts: [] };

/** A 1×1 transparent PNG. */
export const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/**
 * The fixtures the official MCP conformance suite (server mode) expects, so a gateway fronting this
 * server with `"prefix": false` can be checked by it.
 */
const CONFORMANCE_FIXTURES: Fixtures = {
  resources: [
    {
      resource: { uri: 'test://static-text', name: 'static-text', mimeType: TEXT_MIME },
      contents: {
        uri: 'test://static-text',
        mimeType: TEXT_MIME,
        text: 'This is the content of the static text resource.',
      },
    },
    {
      resource: { uri: 'test://static-binary', name: 'static-binary', mimeType: 'image/png' },
      contents: { uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_1X1 },
    },
    {
      resource: { uri: 'test://watched-resource', name: 'watched-resource', mimeType: TEXT_MIME },
      contents: { uri: 'test://watched-resource', mimeType: TEXT_MIME, text: 'Watched resource content.' },
    },
  ],
  templates: [
    {
      template: {
        uriTemplate: 'test://template/{id}/data',
        name: 'template-data',
        mimeType: 'application/json',
      },
      read(uri) {
        const match = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
        if (!match?.[1]) return undefined;
        const id = decodeURIComponent(match[1]);
        return {
          uri,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        };
      },
    },
  ],
  prompts: [
    {
      name: 'test_prompt_with_arguments',
      description: 'A prompt with arguments, for completion tests',
      arguments: [
        { name: 'arg1', description: 'First argument', required: true },
        { name: 'arg2', description: 'Second argument', required: true },
      ],
    },
  ],
};
