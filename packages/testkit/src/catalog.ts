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

  constructor(options: ResolvedTestServerOptions) {
    this.#options = options;
  }

  get resourceCount(): number {
    return this.#options.resources;
  }

  get templateCount(): number {
    return this.#options.templates;
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

  /** Completion values for argument `value` of template `uriTemplate` (empty for unknown templates). */
  complete(uriTemplate: string, value: string): { values: string[]; total: number; hasMore: boolean } {
    let known = false;
    for (let j = 0; j < this.#options.templates && !known; j++) known = this.uriTemplateOf(j) === uriTemplate;
    const all = known ? this.#options.completions.filter((c) => c.startsWith(value)) : [];
    return {
      values: all.slice(0, MAX_COMPLETIONS),
      total: all.length,
      hasMore: all.length > MAX_COMPLETIONS,
    };
  }
}
