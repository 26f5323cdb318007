import { exposeUri } from '../naming/uris.js';
import { isRecord } from '../payload.js';
import type { UpstreamConnection } from '../upstream/connection.js';

/**
 * Rewrites the resource URIs an upstream put in content (DESIGN §4b): `resource_link` items and
 * embedded `resource` items get the exposed `name+uri`, so the client can read them through the
 * gateway. Everything else passes through untouched; an unprefixed upstream's content is unchanged.
 */
export function exposeContent(upstream: UpstreamConnection, content: unknown): unknown {
  if (!upstream.config.prefix || !Array.isArray(content)) return content;
  return content.map((item) => exposeContentItem(upstream.name, item));
}

function exposeContentItem(server: string, item: unknown): unknown {
  if (!isRecord(item)) return item;
  if (item.type === 'resource_link' && typeof item.uri === 'string') {
    return { ...item, uri: exposeUri(server, item.uri, true) };
  }
  if (item.type === 'resource' && isRecord(item.resource) && typeof item.resource.uri === 'string') {
    return { ...item, resource: { ...item.resource, uri: exposeUri(server, item.resource.uri, true) } };
  }
  return item;
}

/** A read result's `contents` with each content's URI exposed. */
export function exposeReadContents(upstream: UpstreamConnection, result: Record<string, unknown>) {
  if (!upstream.config.prefix || !Array.isArray(result.contents)) return result;
  const contents = result.contents.map((c) =>
    isRecord(c) && typeof c.uri === 'string' ? { ...c, uri: exposeUri(upstream.name, c.uri, true) } : c,
  );
  return { ...result, contents };
}

/** A prompt result's messages with the resources they embed or link exposed. */
export function exposePromptMessages(upstream: UpstreamConnection, result: Record<string, unknown>) {
  if (!upstream.config.prefix || !Array.isArray(result.messages)) return result;
  const messages = result.messages.map((m) =>
    isRecord(m) && m.content !== undefined
      ? {
          ...m,
          content: Array.isArray(m.content)
            ? exposeContent(upstream, m.content)
            : exposeContentItem(upstream.name, m.content),
        }
      : m,
  );
  return { ...result, messages };
}

/** A tool result's content with the resources it embeds or links exposed (structuredContent untouched). */
export function exposeToolResult(upstream: UpstreamConnection, result: Record<string, unknown>) {
  if (!upstream.config.prefix || !Array.isArray(result.content)) return result;
  return { ...result, content: exposeContent(upstream, result.content) };
}
