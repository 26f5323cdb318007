import type { SourceFile, SourceIssue } from './read-source.js';
import { formatPath, locate } from './read-source.js';
import { claudeCodeFormat } from './sources/claude-code.js';
import { isObject, type ServerGroup, type SourceFormat } from './sources/format.js';
import { mcpServersFormat } from './sources/mcp-servers.js';
import { vscodeMcpFormat, vscodeSettingsFormat } from './sources/vscode.js';
import { windsurfFormat } from './sources/windsurf.js';

/** Most specific first: a Windsurf file is also an `mcpServers` file. */
const FORMATS: readonly SourceFormat[] = [
  vscodeSettingsFormat,
  vscodeMcpFormat,
  claudeCodeFormat,
  windsurfFormat,
  mcpServersFormat,
];

export interface DetectedSource {
  format: SourceFormat;
  groups: (ServerGroup & { servers: Record<string, unknown> })[];
}

/**
 * Recognises a client file from its content. `unknown` when it holds no MCP server list at all; an
 * issue when it has one of the expected keys but of the wrong shape.
 */
export function detectFormat(source: SourceFile): DetectedSource | SourceIssue | 'unknown' {
  const { file, text, value } = source;
  if (!isObject(value))
    return { file, message: 'expected a JSON object at the top level', ...locate(text, []) };
  const format = FORMATS.find((f) => f.matches(value));
  if (format === undefined) return 'unknown';
  const groups: DetectedSource['groups'] = [];
  for (const group of format.groups(value)) {
    if (!isObject(group.servers)) {
      return {
        file,
        path: formatPath(group.path),
        message: `expected an object of servers (name → entry), found ${describeValue(group.servers)}`,
        ...locate(text, group.path),
      };
    }
    groups.push({ path: group.path, servers: group.servers });
  }
  return { format, groups };
}

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
