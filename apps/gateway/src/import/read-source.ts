import { readFile } from 'node:fs/promises';
import {
  findNodeAtLocation,
  getNodeValue,
  type JSONPath,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from 'jsonc-parser';

/** A client config file as read: its text (kept for write-back) and its value. */
export interface SourceFile {
  file: string;
  text: string;
  value: unknown;
}

/** A problem with a source file: what is wrong, where (JSON path, and line:column when known). */
export interface SourceIssue {
  file: string;
  path?: string;
  message: string;
  line?: number;
  column?: number;
}

/** One line per issue: `<file>:<line>:<column>: <path>: <message>`. */
export function describeSourceIssue(issue: SourceIssue): string {
  const at = issue.line === undefined ? '' : `:${issue.line}:${issue.column ?? 1}`;
  const path = issue.path === undefined ? '' : `${issue.path}: `;
  return `${issue.file}${at}: ${path}${issue.message}`;
}

/**
 * Parses a client config as JSONC (comments and trailing commas allowed, as VS Code and Cursor allow
 * them). A syntax error is reported with its line and column.
 */
export function parseSource(file: string, text: string): SourceFile | SourceIssue {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined || tree === undefined) {
    const { line, column } = lineColumn(text, first?.offset ?? 0);
    const what = first === undefined ? 'empty file' : printParseErrorCode(first.error);
    return { file, message: `not valid JSON (${what})`, line, column };
  }
  return { file, text, value: getNodeValue(tree) };
}

/** Reads and parses `file`; a missing or unreadable file is an issue. */
export async function readSource(file: string): Promise<SourceFile | SourceIssue> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      file,
      message: code === 'ENOENT' ? 'file not found' : `cannot read: ${(error as Error).message}`,
    };
  }
  return parseSource(file, text.startsWith('\uFEFF') ? text.slice(1) : text);
}

/** The line and column of the value at `path` in `text`, when it is there. */
export function locate(text: string, path: JSONPath): { line?: number; column?: number } {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const node = tree === undefined ? undefined : findNodeAtLocation(tree, path);
  return node === undefined ? {} : lineColumn(text, node.offset);
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** `$.mcpServers["my server"].args[0]` for `['mcpServers', 'my server', 'args', 0]`. */
export function formatPath(path: JSONPath): string {
  let out = '$';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  }
  return out;
}
