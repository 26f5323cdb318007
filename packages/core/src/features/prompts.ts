import { exposePromptMessages } from './content.js';
import type { Feature } from './feature.js';
import { type NamedFeatureDeps, namedFeature } from './named.js';

/**
 * Prompts (DESIGN §4b): a merged `prompts/list` named like tools, and `prompts/get` routed by the name
 * index; resources the messages embed or link come back with exposed URIs.
 */
export function promptsFeature(deps: NamedFeatureDeps): Feature {
  return namedFeature(deps, {
    noun: 'prompt',
    use: 'prompts/get',
    cursorKind: 'p',
    expose: exposePromptMessages,
  });
}
