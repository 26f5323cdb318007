import { isObject, type PromptInput, type SourceFormat } from './format.js';

function inputsOf(list: unknown): PromptInput[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((input) =>
    isObject(input) && typeof input.id === 'string'
      ? [
          {
            id: input.id,
            ...(typeof input.description === 'string' ? { description: input.description } : {}),
          },
        ]
      : [],
  );
}

/** VS Code's `mcp.json` (`.vscode/mcp.json` or the user profile's): `servers` and `inputs`. */
export const vscodeMcpFormat: SourceFormat = {
  id: 'vscode-mcp',
  label: 'a VS Code mcp.json',
  matches: (value) => 'servers' in value && !('mcpServers' in value),
  groups: (value) => [{ path: ['servers'], servers: value.servers }],
  inputs: (value) => inputsOf(value.inputs),
  writeBackPath: ['servers'],
  switchyardEntry: ({ command, args }) => ({ type: 'stdio', command, args }),
};

/** VS Code's `settings.json` with an `mcp` key holding `servers` and `inputs`. */
export const vscodeSettingsFormat: SourceFormat = {
  id: 'vscode-settings',
  label: 'a VS Code settings.json ("mcp" key)',
  matches: (value) => isObject(value.mcp) && 'servers' in value.mcp,
  groups: (value) => [{ path: ['mcp', 'servers'], servers: (value.mcp as Record<string, unknown>).servers }],
  inputs: (value) => inputsOf((value.mcp as Record<string, unknown>).inputs),
  writeBackPath: ['mcp', 'servers'],
  switchyardEntry: ({ command, args }) => ({ type: 'stdio', command, args }),
};
