import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { PNG_1X1_BASE64, TEXT_MIME } from './media.js';
import type { FixtureState } from './state.js';

export const WATCHED_URI = 'test://watched-resource';
const TEMPLATE = 'test://template/{id}/data';

/** Values `completion/complete` offers, filtered by the typed prefix. */
const COMPLETIONS: Record<string, readonly string[]> = {
  arg1: ['paris', 'park', 'party', 'test', 'testing'],
  arg2: ['alpha', 'beta', 'gamma'],
  id: ['1', '42', '123', '2024'],
};

/**
 * The resources of the `resources-*` scenarios: a text and a binary resource, a watched resource to
 * subscribe to, and a parameterised template; plus `completion/complete` for the template variable and
 * the prompt arguments. 2025 sessions also get `resources/subscribe`/`unsubscribe` (the 2026-07-28 era
 * replaced them with `subscriptions/listen`, which the SDK serves itself).
 */
export function registerResources(mcp: McpServer, state: FixtureState, era: 'legacy' | 'modern'): void {
  mcp.registerResource(
    'static-text',
    'test://static-text',
    { description: 'A static text resource', mimeType: TEXT_MIME },
    (uri) => ({
      contents: [
        { uri: uri.href, mimeType: TEXT_MIME, text: 'This is the content of the static text resource.' },
      ],
    }),
  );

  mcp.registerResource(
    'static-binary',
    'test://static-binary',
    { description: 'A static binary resource (PNG)', mimeType: 'image/png' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG_1X1_BASE64 }] }),
  );

  mcp.registerResource(
    'watched-resource',
    WATCHED_URI,
    { description: 'A resource clients subscribe to', mimeType: TEXT_MIME },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: TEXT_MIME, text: 'Watched resource content.' }] }),
  );

  mcp.registerResource(
    'template-data',
    new ResourceTemplate(TEMPLATE, { list: undefined }),
    { description: 'A template substituting {id}', mimeType: 'application/json' },
    (uri, variables) => {
      const id = String(variables.id);
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
          },
        ],
      };
    },
  );

  mcp.server.registerCapabilities({ completions: {} });
  mcp.server.setRequestHandler('completion/complete', (request) => {
    const { ref, argument } = request.params;
    const known =
      ref.type === 'ref/prompt' ? ref.name === 'test_prompt_with_arguments' : ref.uri === TEMPLATE;
    const values = (known ? (COMPLETIONS[argument.name] ?? []) : []).filter((v) =>
      v.startsWith(argument.value),
    );
    return { completion: { values, total: values.length, hasMore: false } };
  });

  if (era !== 'legacy') return;
  const subscriptions = state.subscriptionsOf(mcp);
  mcp.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  mcp.server.setRequestHandler('resources/subscribe', (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  mcp.server.setRequestHandler('resources/unsubscribe', (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });
}
