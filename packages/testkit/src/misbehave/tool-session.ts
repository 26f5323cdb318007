import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerEvent,
} from '@modelcontextprotocol/server';
import type { ListKind } from '../server.js';

export type ToolArgs = Record<string, unknown>;

/** The session a misbehave tool runs in. */
export interface MisbehaveSession {
  readonly era: 'legacy' | 'modern';
  /** The SDK server of the session (for requests not related to the call). */
  readonly server: Server;
  /** Awaited before an unsolicited message (HTTP: waits, bounded, for the standalone GET stream). */
  beforeUnsolicited(): Promise<void>;
  /** Sends `notifications/<list>/list_changed` unsolicited on this session (modern stdio: to its listens). */
  notifyListChanged(list: ListKind): Promise<void>;
  /** Publishes a change event on the server's bus (the modern HTTP `subscriptions/listen` streams). */
  publish(event: ServerEvent): void;
}

export function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

export function invalidArgs(tool: string, problem: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid arguments for tool '${tool}': ${problem}`,
  );
}
