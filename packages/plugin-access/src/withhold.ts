import { isRecord } from '@switchyard/core';

/** What stands in for an embedded resource the caller may not read, inside a tool result or a prompt message. */
export const WITHHELD = Object.freeze({
  type: 'text',
  text: 'A resource was withheld here: the access policy does not let this client read it.',
});

/** Decides whether the caller may read an exposed resource URI. */
export type MayRead = (exposedUri: string) => boolean;

/** A result with what the caller may not read taken out, and how many items were. */
export interface Screened {
  result: Record<string, unknown>;
  withheld: number;
}

/** What becomes of one content item: kept, replaced, or dropped (`undefined`). */
type Screen = (item: unknown) => unknown;

/**
 * A `tools/call` or `prompts/get` result without the resources the caller may not read: a
 * `resource_link` to one is removed (as a denied item vanishes from a list), an embedded `resource` is
 * replaced by {@link WITHHELD} (the answer keeps its shape and says that content is missing, without
 * its URI or content). A prompt message whose one content item is removed is removed. The result is
 * returned as is when nothing is withheld. `structuredContent` is not inspected.
 */
export function withholdResources(
  method: string,
  result: Record<string, unknown>,
  mayRead: MayRead,
): Screened {
  let withheld = 0;
  const screen: Screen = (item) => {
    const found = resourceUri(item);
    if (found === undefined || mayRead(found.uri)) return item;
    withheld += 1;
    return found.link ? undefined : { ...WITHHELD };
  };
  if (method === 'tools/call' && Array.isArray(result.content)) {
    const content = screenAll(result.content, screen);
    return withheld === 0 ? { result, withheld } : { result: { ...result, content }, withheld };
  }
  if (method === 'prompts/get' && Array.isArray(result.messages)) {
    const messages = result.messages.flatMap((message: unknown) => {
      if (!isRecord(message) || message.content === undefined) return [message];
      const before = withheld;
      const content = Array.isArray(message.content)
        ? screenAll(message.content, screen)
        : screen(message.content);
      if (withheld === before) return [message];
      return content === undefined ? [] : [{ ...message, content }];
    });
    return withheld === 0 ? { result, withheld } : { result: { ...result, messages }, withheld };
  }
  return { result, withheld };
}

/**
 * A `resources/read` result without the contents of other resources the caller may not read (an upstream
 * may answer the read of a folder with its files): each such entry is removed. Entries for the URI the
 * client asked for (already allowed) are not decided again.
 */
export function withholdReadContents(
  requested: unknown,
  result: Record<string, unknown>,
  mayRead: MayRead,
): Screened {
  if (!Array.isArray(result.contents)) return { result, withheld: 0 };
  const kept = result.contents.filter((entry: unknown) => {
    const uri = isRecord(entry) ? entry.uri : undefined;
    return uri === requested || (typeof uri === 'string' && mayRead(uri));
  });
  const withheld = result.contents.length - kept.length;
  return withheld === 0 ? { result, withheld } : { result: { ...result, contents: kept }, withheld };
}

function screenAll(content: unknown[], screen: Screen): unknown[] {
  return content.map(screen).filter((item) => item !== undefined);
}

/**
 * The URI of a `resource_link` or embedded `resource` content item (`''` when it has none: decided as an
 * unreadable URI); undefined for other items.
 */
function resourceUri(item: unknown): { uri: string; link: boolean } | undefined {
  if (!isRecord(item)) return undefined;
  if (item.type === 'resource_link') return { uri: typeof item.uri === 'string' ? item.uri : '', link: true };
  if (item.type === 'resource') {
    const resource = item.resource;
    const uri = isRecord(resource) && typeof resource.uri === 'string' ? resource.uri : '';
    return { uri, link: false };
  }
  return undefined;
}
