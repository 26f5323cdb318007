import { isObject, type SourceFormat } from './format.js';

/** Windsurf's `~/.codeium/windsurf/mcp_config.json`: `mcpServers`, with `serverUrl` for a remote server. */
export const windsurfFormat: SourceFormat = {
  id: 'windsurf',
  label: 'a Windsurf mcp_config.json',
  matches: (value) =>
    isObject(value.mcpServers) &&
    Object.values(value.mcpServers).some((entry) => isObject(entry) && 'serverUrl' in entry),
  groups: (value) => [{ path: ['mcpServers'], servers: value.mcpServers }],
  writeBackPath: ['mcpServers'],
  switchyardEntry: ({ command, args }) => ({ command, args }),
};
