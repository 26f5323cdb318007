import type { CurationConfig } from './naming/curation.js';

/** How the gateway reaches one upstream MCP server (the `mcpServers` entries of the config). */
export type UpstreamTransportConfig =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { kind: 'http'; url: string; headers: Record<string, string> }
  | { kind: 'sse'; url: string; headers: Record<string, string> }
  | { kind: 'ws'; url: string; headers: Record<string, string> };

export interface UpstreamConfig {
  /** Matches `^[a-z][a-z0-9-]*$`; used as the URI prefix. */
  name: string;
  transport: UpstreamTransportConfig;
  /** Expose this server's URIs as `name+uri` and its tool and prompt names as `name__tool` (default true). */
  prefix: boolean;
  /** Timeout of every request to this upstream, in ms (default 30 000); progress restarts it for tool calls. */
  timeoutMs: number;
  /** Which of the upstream's own tool names are exposed (allow/deny globs); default all. */
  tools?: CurationConfig;
  /** Which of the upstream's own prompt names are exposed (allow/deny globs); default all. */
  prompts?: CurationConfig;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
