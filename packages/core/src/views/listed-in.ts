import type { EndpointView } from './endpoint-view.js';

/**
 * Whether a listed item (as clients see it) belongs in `view`'s list: tools and prompts by exposed name,
 * resources by exposed URI, templates by exposed URI template; other lists (skills, tasks) by server.
 */
export function listedIn(
  view: EndpointView,
  field: string,
  upstream: string,
  item: Record<string, unknown>,
): boolean {
  const key = (name: string) => (typeof item[name] === 'string' ? (item[name] as string) : '');
  switch (field) {
    case 'tools':
      return view.tool(key('name'), upstream);
    case 'prompts':
      return view.prompt(key('name'), upstream);
    case 'resources':
      return view.resource(key('uri'), upstream);
    case 'resourceTemplates':
      return view.resource(key('uriTemplate'), upstream, true);
    default:
      return view.includes(upstream);
  }
}
