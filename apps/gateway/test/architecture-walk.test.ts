import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/architecture.md walks four requests hop by hop, each hop named `path/to/file.ts:name` (issue 29,
// "the walk is the code"). This checks every such name against the source as it is, with plain reads:
// a renamed file, function, class or method fails here until the walk says what the code does.
//
// The reference form (the doc states it too): a backticked `path.ts:name`, the path from the repo root,
// the name one of
// - `identifier`: a function, class, const, let, interface, type or enum declared in the file;
// - `Class.method` (`Class.#method` for a private one): a method, accessor or field of that class;
// - `outer.inner`: a const, let or function declared inside the function `outer` (a closure).

const root = join(import.meta.dirname, '..', '..', '..');
const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
/** The doc's prose: fenced blocks (the diagram) hold no references, and their backticks pair nothing. */
const prose = doc.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');

const IDENT = '#?[A-Za-z_$][\\w$]*';
/** A reference, exactly: `path/to/file.ts:name` or `path/to/file.ts:Outer.inner`. */
const REFERENCE = new RegExp(`^([\\w@./-]+\\.ts):(${IDENT}(?:\\.${IDENT})?)$`);
/** Every inline code span of the prose. */
const CODE_SPAN = /`([^`\n]+)`/g;

/** The four walks, each a heading of its own. */
const WALKS = [
  '### Walk 1: a legacy `resources/read`',
  '### Walk 2: a legacy `tools/call`',
  '### Walk 3: a modern `resources/read`',
  '### Walk 4: a modern `tools/call`',
] as const;

const MODIFIERS =
  '(?:(?:export|default|declare|abstract|public|private|protected|static|async|readonly|override|get|set)\\s+)*';

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Where `name` is declared with a keyword (function, class, const, …) in `text`, or -1. */
function keywordDeclaration(text: string, name: string): number {
  const declared = new RegExp(
    `(?:^|[\\s(])(?:function\\*?|class|const|let|var|interface|type|enum)\\s+${literal(name)}(?![\\w$])`,
    'm',
  );
  return text.search(declared);
}

/** Whether `name` is declared in `scope` (a class's or function's body): keyword, method or field. */
function declaredIn(scope: string, name: string): boolean {
  const n = literal(name);
  const method = new RegExp(`^[ \\t]*${MODIFIERS}\\*?${n}\\s*(?:<[^(\\n]*>)?\\(`, 'm');
  const field = new RegExp(`^[ \\t]*${MODIFIERS}${n}\\??\\s*[:=]`, 'm');
  return keywordDeclaration(scope, name) >= 0 || method.test(scope) || field.test(scope);
}

/** Why `reference` does not name what exists, or undefined when it does. */
function missing(reference: string): string | undefined {
  const parsed = REFERENCE.exec(reference);
  if (!parsed)
    return `\`${reference}\` is not of the form path/to/file.ts:name or path/to/file.ts:Outer.inner`;
  const [, path, name] = parsed as unknown as [string, string, string];
  const file = join(root, path);
  if (!existsSync(file)) return `${path} does not exist (paths are from the repo root)`;
  const text = readFileSync(file, 'utf8');
  const [outer, inner] = name.split('.') as [string, string | undefined];
  if (outer.startsWith('#')) return `${reference}: a private name needs its class (Class.#name)`;
  const at = keywordDeclaration(text, outer);
  if (at < 0) return `${path} declares no function, class or const named ${outer}`;
  if (inner === undefined) return undefined;
  // The body of `outer`: from its declaration to the first closing brace at the start of a line.
  const end = text.indexOf('\n}', at);
  const scope = text.slice(at, end < 0 ? undefined : end);
  return declaredIn(scope, inner) ? undefined : `${path}: ${outer} declares no ${inner}`;
}

/** Every `…ts:…` code span in the prose (a malformed one is kept, so that it fails). */
function references(text: string): string[] {
  return [...text.matchAll(CODE_SPAN)].map((m) => m[1]!).filter((span) => /\.ts:/.test(span));
}

/** The text of one walk: from its heading to the next heading. */
function walk(heading: string): string {
  const start = prose.indexOf(`\n${heading}`);
  if (start < 0) return '';
  const next = prose.slice(start + 1).search(/\n#{2,3} /);
  return next < 0 ? prose.slice(start) : prose.slice(start, start + 1 + next);
}

describe('the request walks in docs/architecture.md', () => {
  const all = references(prose);

  it('has the four walks, each a numbered list of named hops', () => {
    for (const heading of WALKS) {
      const text = walk(heading);
      expect(text, `missing heading: ${heading}`).not.toBe('');
      const hops = text.split('\n').filter((line) => /^\d+(?:[–-]\d+)?\. /.test(line));
      expect(hops.length, `${heading}: numbered hops`).toBeGreaterThanOrEqual(5);
      expect(references(text).length, `${heading}: named hops`).toBeGreaterThanOrEqual(3);
    }
  });

  it('goes from the HTTP listener to the stdio upstream and back', () => {
    for (const end of [
      'apps/gateway/src/listeners/http.ts:startHttpListener.handle',
      'apps/gateway/src/listeners/modern-endpoint.ts:ModernEndpoint.serve',
      'packages/core/src/gateway.ts:Gateway.handle',
      'packages/core/src/upstream/connection.ts:UpstreamConnection.request',
      'packages/core/src/transports/upstream/stdio-client-transport.ts:StdioClientTransport.send',
    ]) {
      expect(all, end).toContain(end);
    }
  });

  it('names only files and functions that exist', () => {
    expect(all.length).toBeGreaterThan(30);
    const problems = [...new Set(all)].flatMap((reference) => missing(reference) ?? []);
    expect(problems).toEqual([]);
  });

  it('catches a renamed file, function or method', () => {
    expect(missing('packages/core/src/gateway.ts:Gateway.handle')).toBeUndefined();
    expect(missing('packages/core/src/gateway.ts:Gateway.#enter')).toBeUndefined();
    expect(missing('packages/core/src/interaction/caller.ts:interactiveCaller.legacy')).toBeUndefined();
    expect(missing('packages/core/src/gateway.ts:Gateway.handleRequest')).toMatch(/declares no/);
    expect(missing('packages/core/src/gateway.ts:Gateway.#leave')).toMatch(/declares no/);
    expect(missing('packages/core/src/gateway.ts:Gateways.handle')).toMatch(/declares no/);
    expect(missing('packages/core/src/interaction/caller.ts:interactiveCaller.modernist')).toMatch(
      /declares no/,
    );
    expect(missing('packages/core/src/gateway-old.ts:Gateway.handle')).toMatch(/does not exist/);
    expect(missing('gateway.ts:Gateway.handle')).toMatch(/does not exist/);
    expect(missing('packages/core/src/gateway.ts:Gateway.handle()')).toMatch(/not of the form/);
  });
});
