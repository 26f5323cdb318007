import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument, type YAMLError } from 'yaml';
import type { ConfigIssue } from './expand.js';

/**
 * The longest config text read a second time as a YAML document, to place its problems at lines or to find
 * a JSON key given twice: about 300 ms and 40 MB a MiB, which froze a gateway for seconds on a huge file.
 * A longer file's problems carry their JSON path only.
 */
const MAX_REREAD_CHARS = 1024 * 1024;

/** A 1-based place in the config text. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** A config file's text turned into a value, or the problems that kept it from being one (with positions). */
export type ParsedSource = { value: unknown } | { issues: ConfigIssue[] };

/** Whether `file` is read as YAML (by its extension); anything else is JSON. */
export function isYamlFile(file: string): boolean {
  return /\.ya?ml$/i.test(file);
}

/**
 * Parses a YAML config (YAML 1.2 core schema: `yes`/`no` stay strings; duplicate keys are errors; alias
 * expansion is bounded). Each syntax problem becomes an issue with its line and column.
 */
export function parseYamlSource(text: string): ParsedSource {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      issues: doc.errors.map((error) => ({
        path: '$',
        message: `not valid YAML: ${yamlProblem(error)}`,
        ...place(lines, error.pos[0]),
      })),
    };
  }
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    return { issues: [{ path: '$', message: `not valid YAML: ${(error as Error).message}` }] };
  }
}

function yamlProblem(error: YAMLError): string {
  // The parser's own words for this one point at its API, not at the file.
  if (error.code === 'MULTIPLE_DOCS') return 'a config is one YAML document (remove the second "---")';
  return error.message;
}

/**
 * Parses a JSON config; a syntax error is one issue, placed when the engine says where. A key given twice
 * in one object is refused, as in YAML (JSON.parse would keep the last one silently: a second
 * `"mcpServers"` would drop the first's servers).
 */
export function parseJsonSource(text: string): ParsedSource {
  // A byte order mark (some Windows editors write one) is no part of the JSON.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    const value: unknown = JSON.parse(json);
    const duplicates = json.length <= MAX_REREAD_CHARS ? duplicateKeys(text) : [];
    return duplicates.length > 0 ? { issues: duplicates } : { value };
  } catch (error) {
    // V8 quotes the whole text in some messages (`Unexpected token ']', "…" is not valid JSON`): the
    // file, however long, in a log line. It names no position then; a trailing comma is found here.
    const message = (error as Error).message.replace(/, (?:\.\.\.)?"[\s\S]*" is not valid JSON$/, '');
    const at = Number(/at position (\d+)/.exec(message)?.[1] ?? trailingComma(json));
    const offset = json === text ? 0 : 1;
    const position = Number.isNaN(at) ? {} : place(new LineCounterOf(text), at + offset);
    return { issues: [{ path: '$', message: `not valid JSON: ${message}`, ...position }] };
  }
}

/** A key repeated in one object of `text` (JSON, which is YAML too), each placed. */
function duplicateKeys(text: string): ConfigIssue[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  return doc.errors
    .filter((error) => error.code === 'DUPLICATE_KEY')
    .map((error) => {
      const key = /^"((?:[^"\\]|\\.)*)"/.exec(text.slice(error.pos[0]))?.[1];
      return {
        path: '$',
        message: `not valid JSON config: ${key === undefined ? 'a key' : `the key "${key}"`} is given twice in one object`,
        ...place(lines, error.pos[0]),
      };
    });
}

/** Where the first `,` right before a `]` or `}` is (outside strings), or NaN. */
function trailingComma(json: string): number {
  const found = /^(?:[^"]|"(?:[^"\\]|\\.)*")*?(,\s*[\]}])/.exec(json);
  return found ? found[0].length - found[1]!.length : Number.NaN;
}

/**
 * Adds the line and column of each issue's JSON path in `text` (YAML, or JSON read as the YAML it also
 * is). A path that does not exist in the text (a missing key) points at its nearest existing parent.
 * Issues keep their positions if they have them; text that does not parse, or is longer than
 * {@link MAX_REREAD_CHARS}, leaves them unplaced.
 */
export function placeIssues(text: string, issues: readonly ConfigIssue[]): ConfigIssue[] {
  if (text.length > MAX_REREAD_CHARS) return [...issues];
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0 || !doc.contents) return [...issues];
  const root = doc.contents as Node;
  return issues.map((issue) => {
    if (issue.line !== undefined) return issue;
    const segments = pathSegments(issue.path);
    const node = segments ? nearestNode(root, segments) : undefined;
    return node?.range ? { ...issue, ...place(lines, node.range[0]) } : issue;
  });
}

/** Splits a path made by `joinPath` (`$.a["b-c"][0]`) into its keys; undefined when it is not one. */
export function pathSegments(path: string): (string | number)[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const segments: (string | number)[] = [];
  const token = /\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
  token.lastIndex = 1;
  while (token.lastIndex < path.length) {
    const match = token.exec(path);
    if (!match) return undefined;
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push(JSON.parse(match[3] as string) as string);
  }
  return segments;
}

/** The node at `segments`, or the deepest one on the way there. */
function nearestNode(root: Node, segments: readonly (string | number)[]): Node {
  let node = root;
  for (const key of segments) {
    const next = childOf(node, key);
    if (!next) break;
    node = next;
  }
  return node;
}

function childOf(node: Node, key: string | number): Node | undefined {
  if (isSeq(node) && typeof key === 'number') return node.items[key] as Node | undefined;
  if (!isMap(node)) return undefined;
  // Keys compare as strings: `1:` in YAML is the key "1" of the loaded config.
  const pair = node.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === String(key));
  if (!pair) return undefined;
  // A key with no value (`docs:`) is placed at the key.
  return (pair.value as Node | null) ?? (pair.key as Node | null) ?? undefined;
}

/** A LineCounter over `text` (for positions found outside the YAML parser). */
class LineCounterOf extends LineCounter {
  constructor(text: string) {
    super();
    this.addNewLine(0);
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.addNewLine(i + 1);
  }
}

function place(lines: LineCounter, offset: number | undefined): Partial<SourcePosition> {
  if (offset === undefined) return {};
  const { line, col } = lines.linePos(offset);
  return { line, column: col };
}
