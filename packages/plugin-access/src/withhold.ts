/** What stands in for a resource the caller may not read, inside a tool result or a prompt message. */
export const WITHHELD = Object.freeze({
  type: 'text',
  text: 'A resource was withheld here: the access policy does not let this client read it.',
});

/** Decides whether the caller may read an exposed resource URI. */
export type MayRead = (exposedUri: string) => boolean;

/**
 * A `tools/call` or `prompts/get` result with every resource it links (`resource_link`) or embeds
 * (`resource`) that the caller may not read replaced by {@link WITHHELD}, and how many were. The
 * result is returned as is when nothing is withheld. `structuredContent` is not inspected.
 */
export function withholdResources(
  method: string,
  result: Record<string, unknown>,
  mayRead: MayRead,
): { result: Record<string, unknown>; withheld: number } {
  let withheld = 0;
  const screen = (item: unknown): unknown => {
    const uri = resourceUri(item);
    if (uri === undefined || mayRead(uri)) return item;
    withheld += 1;
    return { ...WITHHELD };
  };
  const screenAll = (content: unknown): unknown => (Array.isArray(content) ? content.map(screen) : content);
  if (method === 'tools/call' && Array.isArray(result.content)) {
    const content = screenAll(result.content);
    return withheld === 0 ? { result, withheld } : { result: { ...result, content }, withheld };
  }
  if (method === 'prompts/get' && Array.isArray(result.messages)) {
    const messages = result.messages.map((message: unknown) => {
      if (!isRecord(message) || message.content === undefined) return message;
      const before = withheld;
      const content = Array.isArray(message.content) ? screenAll(message.content) : screen(message.content);
      return withheld === before ? message : { ...message, content };
    });
    return withheld === 0 ? { result, withheld } : { result: { ...result, messages }, withheld };
  }
  return { result, withheld };
}

/** The URI of a `resource_link` or embedded `resource` content item; undefined for other items. */
function resourceUri(item: unknown): string | undefined {
  if (!isRecord(item)) return undefined;
  if (item.type === 'resource_link') return typeof item.uri === 'string' ? item.uri : '';
  if (item.type === 'resource') {
    const resource = item.resource;
    return isRecord(resource) && typeof resource.uri === 'string' ? resource.uri : '';
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
