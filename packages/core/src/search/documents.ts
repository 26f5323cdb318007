/** A catalog tool as tool search sees it, and the words it is indexed under. */
import { NAME_SEPARATOR } from '../naming/names.js';
import { isRecord } from '../payload.js';
import type { SearchField } from './options.js';
import { words } from './words.js';

/** One tool of the catalog: its exposed name, the server it comes from, and what the server says of it. */
export interface SearchableTool {
  /** The exposed name (`github__create_issue`): what `search` returns. */
  name: string;
  /** The upstream server's name (`github`). */
  server: string;
  title?: string;
  description?: string;
  /** The tool's JSON Schema for its arguments: property names and descriptions are indexed. */
  inputSchema?: unknown;
  annotations?: { title?: string };
}

/** The text of each search field of one tool, already split into words (joined by spaces). */
export type SearchDocument = Record<SearchField, string>;

/** How deep into nested object and array schemas parameter names are collected. */
const MAX_SCHEMA_DEPTH = 3;
/** At most this many parameters of one tool are indexed (a generated schema can be huge). */
const MAX_PARAMS = 64;

/** The tool's own name: the exposed name without its `<server>__` prefix, when it has that prefix. */
function ownName(tool: SearchableTool): string {
  const prefix = `${tool.server}${NAME_SEPARATOR}`;
  return tool.name.startsWith(prefix) ? tool.name.slice(prefix.length) : tool.name;
}

/** Parameter names and descriptions from `properties` (and nested objects and array items). */
function collectParams(schema: unknown, names: string[], descriptions: string[], depth: number): void {
  if (!isRecord(schema) || depth > MAX_SCHEMA_DEPTH) return;
  const properties = schema.properties;
  if (isRecord(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      if (names.length >= MAX_PARAMS) return;
      names.push(name);
      if (isRecord(property)) {
        if (typeof property.description === 'string') descriptions.push(property.description);
        collectParams(property, names, descriptions, depth + 1);
      }
    }
  }
  if (isRecord(schema.items)) collectParams(schema.items, names, descriptions, depth + 1);
}

const joined = (text: string | undefined): string => (text === undefined ? '' : words(text).join(' '));

/** The search document of `tool`: every field as space-separated words. */
export function searchDocument(tool: SearchableTool): SearchDocument {
  const paramNames: string[] = [];
  const paramDescriptions: string[] = [];
  collectParams(tool.inputSchema, paramNames, paramDescriptions, 0);
  return {
    name: joined(ownName(tool)),
    server: joined(tool.server),
    title: joined(tool.title ?? tool.annotations?.title),
    description: joined(tool.description),
    params: joined(paramNames.join(' ')),
    paramDescriptions: joined(paramDescriptions.join(' ')),
  };
}
