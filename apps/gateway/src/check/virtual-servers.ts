import {
  EndpointView,
  exposeName,
  isGatewayTool,
  nameFilter,
  type ToolSearchConfig,
  type UpstreamConfig,
  type UpstreamProbe,
  type VirtualServerConfig,
} from '@switchyard/core';

const HEADER = ['VIRTUAL SERVER', 'SERVERS', 'TOOLS', 'PROMPTS', 'TOOL SEARCH', 'NOTES'] as const;

/**
 * The `switchyard check` table of virtual servers (DESIGN §13): what each exposes of what the upstreams
 * listed (their tools and prompts after curation, by the gateway's exposed names), whether it searches,
 * and what looks wrong: an `alwaysList` name no server lists or given twice, and a tool the gateway's own
 * `search_tools` or `call_tool` shadows there.
 */
export function renderVirtualServers(
  virtualServers: ReadonlyMap<string, VirtualServerConfig>,
  upstreams: readonly UpstreamConfig[],
  probes: readonly UpstreamProbe[],
  toolSearch?: ToolSearchConfig,
): string {
  const exposed = exposedNames(upstreams, probes);
  const rows = [...virtualServers].map(([name, config]) => {
    const view = new EndpointView(name, config, toolSearch);
    const servers = upstreams.map((u) => u.name).filter((u) => view.includes(u));
    const tools = exposed.tools.filter(([e, u]) => view.tool(e, u)).map(([e]) => e);
    const prompts = exposed.prompts.filter(([e, u]) => view.prompt(e, u)).length;
    const search = view.toolSearch?.enabled === true;
    const notes = search ? searchNotes(view.toolSearch?.alwaysList ?? [], tools).join('; ') : '';
    return [name, servers.join(','), String(tools.length), String(prompts), search ? 'on' : 'off', notes];
  });
  const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === 2 || i === 3 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(HEADER), ...rows.map(line)].join('\n');
}

/** What looks wrong with tool search on an endpoint exposing `tools`, each a note. */
function searchNotes(alwaysList: readonly string[], tools: readonly string[]): string[] {
  const notes: string[] = [];
  const missing = alwaysList.filter((t, i) => alwaysList.indexOf(t) === i && !tools.includes(t));
  if (missing.length > 0) notes.push(`alwaysList names no tool it exposes: ${missing.join(', ')}`);
  const twice = alwaysList.filter((t, i) => alwaysList.indexOf(t) !== i);
  if (twice.length > 0) notes.push(`alwaysList names a tool twice: ${[...new Set(twice)].join(', ')}`);
  const shadowed = tools.filter(isGatewayTool);
  if (shadowed.length > 0) {
    notes.push(
      `tool search's own tools shadow the upstream tools named ${shadowed.join(', ')}: not found, not called`,
    );
  }
  return notes;
}

/** Every listed tool and prompt as [exposed name, server], curation applied. */
function exposedNames(upstreams: readonly UpstreamConfig[], probes: readonly UpstreamProbe[]) {
  const out = { tools: [] as [string, string][], prompts: [] as [string, string][] };
  for (const probe of probes) {
    const config = upstreams.find((u) => u.name === probe.name);
    if (!probe.ok || !config || !probe.definitions) continue;
    for (const kind of ['tools', 'prompts'] as const) {
      const curated = nameFilter(kind === 'tools' ? config.tools : config.prompts);
      for (const item of probe.definitions[kind]) {
        if (typeof item.name !== 'string' || !curated(item.name)) continue;
        out[kind].push([exposeName(config.name, item.name, config.prefix), config.name]);
      }
    }
  }
  return out;
}
