import { isObject, type ServerGroup, type SourceFormat } from './format.js';

/**
 * Claude Code's `~/.claude.json`: user-scope servers in the top-level `mcpServers`, local-scope ones
 * under `projects.<path>.mcpServers`. Write-back puts Switchyard at user scope, so every project has it.
 */
export const claudeCodeFormat: SourceFormat = {
  id: 'claude-code',
  label: 'a Claude Code ~/.claude.json',
  matches: (value) => isObject(value.projects),
  groups: (value) => {
    const groups: ServerGroup[] = [];
    if ('mcpServers' in value) groups.push({ path: ['mcpServers'], servers: value.mcpServers });
    for (const [project, settings] of Object.entries(value.projects as Record<string, unknown>)) {
      if (isObject(settings) && 'mcpServers' in settings)
        groups.push({ path: ['projects', project, 'mcpServers'], servers: settings.mcpServers });
    }
    return groups;
  },
  writeBackPath: ['mcpServers'],
  switchyardEntry: ({ command, args }) => ({ type: 'stdio', command, args, env: {} }),
};
