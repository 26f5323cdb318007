import type { JSONPath } from 'jsonc-parser';

/** A map of server entries inside a client file, and where it sits (its JSON path). */
export interface ServerGroup {
  path: JSONPath;
  servers: unknown;
}

/** A VS Code `inputs` entry: a value VS Code prompts for, referenced as `${input:<id>}`. */
export interface PromptInput {
  id: string;
  description?: string;
}

/** One client file format, recognised from the content. */
export interface SourceFormat {
  id: 'vscode-mcp' | 'vscode-settings' | 'claude-code' | 'windsurf' | 'mcp-servers';
  /** For messages: what the file was taken for. */
  label: string;
  matches(value: Record<string, unknown>): boolean;
  /** The server maps of the file (each checked to be an object by the caller). */
  groups(value: Record<string, unknown>): ServerGroup[];
  /** VS Code's `inputs`, by id. */
  inputs?(value: Record<string, unknown>): PromptInput[];
  /** Where `--write-back` puts the one Switchyard entry. */
  writeBackPath: JSONPath;
  /** The client's stdio entry running `command` (`npx -y switchyard --config <file>`). */
  switchyardEntry(command: { command: string; args: string[] }): Record<string, unknown>;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
