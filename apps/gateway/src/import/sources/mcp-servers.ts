import type { SourceFormat } from './format.js';

/**
 * The `mcpServers` map that Claude Desktop (`claude_desktop_config.json`), Cursor (`mcp.json`) and
 * Claude Code's project `.mcp.json` share: their files cannot be told apart by content, and need not be.
 */
export const mcpServersFormat: SourceFormat = {
  id: 'mcp-servers',
  label: 'an "mcpServers" list (Claude Desktop, Cursor or Claude Code .mcp.json)',
  matches: (value) => 'mcpServers' in value,
  groups: (value) => [{ path: ['mcpServers'], servers: value.mcpServers }],
  writeBackPath: ['mcpServers'],
  switchyardEntry: ({ command, args }) => ({ command, args }),
};
