import { dirname, isAbsolute, resolve } from 'node:path';
import type { JSONPath } from 'jsonc-parser';
import { describeValue } from './detect.js';
import { formatPath, locate, type SourceFile, type SourceIssue } from './read-source.js';
import { isObject } from './sources/format.js';
import { rewriteVariables, type VariableContext, type VariableFindings } from './variables.js';

/** A server entry as Switchyard's `mcpServers` takes it (DESIGN §3). */
export type ServerEntry =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string; disabled?: true }
  | { url: string; transport?: 'sse' | 'ws'; headers?: Record<string, string>; disabled?: true };

/** Keys this importer reads; any other key of a client entry is dropped, with a note. */
const READ = new Set([
  'type',
  'transport',
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'serverUrl',
  'headers',
  'disabled',
]);
const STREAMABLE = new Set(['http', 'streamable-http', 'streamableHttp', 'streamable_http']);

export interface EntryContext extends VariableContext {
  source: SourceFile;
  /** The entry's JSON path in the source. */
  path: JSONPath;
  issues: SourceIssue[];
  notes: string[];
  found: VariableFindings;
}

/**
 * One client server entry as a Switchyard entry: stdio (`command`, `args`, `env`, `cwd`) or remote
 * (`url` or Windsurf's `serverUrl`, `headers`, and `type`/`transport` as Switchyard's `transport`:
 * `sse` for legacy SSE, nothing for Streamable HTTP). `disabled: true` is kept. Undefined when the entry
 * is unusable (an issue says why).
 */
export function convertEntry(raw: unknown, ctx: EntryContext): ServerEntry | undefined {
  const issue = (path: JSONPath, message: string) => {
    ctx.issues.push({
      file: ctx.source.file,
      path: formatPath(path),
      message,
      ...locate(ctx.source.text, path),
    });
    return undefined;
  };
  const at = ctx.path;
  const name = String(at.at(-1));
  if (!isObject(raw)) return issue(at, `expected a server entry object, found ${describeValue(raw)}`);
  const type = raw.type ?? raw.transport;
  const typeKey = raw.type !== undefined ? 'type' : 'transport';
  if (type !== undefined && typeof type !== 'string') return issue([...at, typeKey], 'expected a string');
  const url = raw.url ?? raw.serverUrl;
  const urlKey = raw.url !== undefined ? 'url' : 'serverUrl';
  const sub = (value: string) => rewriteVariables(value, ctx, ctx.found);
  const dropped = Object.keys(raw).filter((key) => !READ.has(key));
  if (dropped.length > 0)
    ctx.notes.push(
      `${name}: not imported: ${dropped.map((k) => JSON.stringify(k)).join(', ')} (${ctx.source.file})`,
    );
  const disabled = raw.disabled === true ? { disabled: true as const } : {};

  if (raw.command !== undefined || type === 'stdio') {
    if (type !== undefined && type !== 'stdio')
      return issue([...at, typeKey], `"${type}" does not go with "command" (a stdio server)`);
    if (typeof raw.command !== 'string' || raw.command === '')
      return issue([...at, 'command'], 'expected a non-empty command string');
    const args = stringList(raw.args, [...at, 'args'], issue);
    const env = stringMap(raw.env, [...at, 'env'], issue);
    if (raw.cwd !== undefined && typeof raw.cwd !== 'string')
      return issue([...at, 'cwd'], 'expected a string');
    if (args === null || env === null) return undefined;
    return {
      command: sub(raw.command),
      ...(args && args.length > 0 ? { args: args.map(sub) } : {}),
      ...(env && Object.keys(env).length > 0 ? { env: mapValues(env, sub) } : {}),
      ...(typeof raw.cwd === 'string' ? { cwd: absoluteCwd(sub(raw.cwd), ctx) } : {}),
      ...disabled,
    };
  }
  if (url === undefined)
    return issue(at, 'each server needs "command" (stdio) or "url" (remote; Windsurf: "serverUrl")');
  if (typeof url !== 'string' || url === '') return issue([...at, urlKey], 'expected a non-empty URL string');
  let transport: 'sse' | 'ws' | undefined;
  if (type === 'sse') transport = 'sse';
  else if (type === 'ws' || type === 'websocket') transport = 'ws';
  else if (type !== undefined && !STREAMABLE.has(type))
    return issue(
      [...at, typeKey],
      `unknown server type "${type}" (expected stdio, http, streamable-http or sse)`,
    );
  else if (type === undefined && /\/sse\/?(\?.*)?$/.test(url)) {
    // Cursor and Claude Desktop try both; Switchyard needs to be told, and a path ending in /sse is the
    // convention of legacy SSE servers.
    transport = 'sse';
    ctx.notes.push(
      `${name}: no "type" and the URL ends in /sse: imported as legacy SSE ("transport": "sse")`,
    );
  }
  const headers = stringMap(raw.headers, [...at, 'headers'], issue);
  if (headers === null) return undefined;
  return {
    url: sub(url),
    ...(transport ? { transport } : {}),
    ...(headers && Object.keys(headers).length > 0 ? { headers: mapValues(headers, sub) } : {}),
    ...disabled,
  };
}

/** A relative `cwd` meant the client's folder; Switchyard would read it from the config's folder. */
function absoluteCwd(cwd: string, ctx: EntryContext): string {
  if (isAbsolute(cwd) || cwd.startsWith('${')) return cwd;
  return resolve(ctx.workspace ?? dirname(ctx.source.file), cwd);
}

type Report = (path: JSONPath, message: string) => undefined;

/** Strings (numbers and booleans as their text); null after reporting anything else. */
function stringList(value: unknown, path: JSONPath, issue: Report): string[] | undefined | null {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    return issue(path, `expected an array of strings, found ${describeValue(value)}`) ?? null;
  const out: string[] = [];
  for (const [i, item] of value.entries()) {
    if (!['string', 'number', 'boolean'].includes(typeof item))
      return issue([...path, i], `expected a string, found ${describeValue(item)}`) ?? null;
    out.push(String(item));
  }
  return out;
}

function stringMap(value: unknown, path: JSONPath, issue: Report): Record<string, string> | undefined | null {
  if (value === undefined) return undefined;
  if (!isObject(value))
    return issue(path, `expected an object of strings, found ${describeValue(value)}`) ?? null;
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (!['string', 'number', 'boolean'].includes(typeof item))
      return issue([...path, key], `expected a string, found ${describeValue(item)}`) ?? null;
    out[key] = String(item);
  }
  return out;
}

function mapValues(record: Record<string, string>, fn: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v)]));
}
