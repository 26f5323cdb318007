import type { GetPromptResult, Prompt, PromptMessage } from '@modelcontextprotocol/server';
import type { FixturePrompt, ResourceCatalog } from './catalog.js';
import type { ResolvedTestServerOptions } from './options.js';

function generatedPrompt(index: number): Prompt {
  return {
    name: `prompt_${index}`,
    title: `Prompt ${index}`,
    description: `Generated test prompt ${index}`,
    arguments: [{ name: 'topic', description: 'What the prompt is about', required: false }],
  };
}

/**
 * The prompts of a test server, in listing order: generated `prompt_0 … prompt_{n-1}`, then the fixture's.
 * Reads the live options object, so `setPromptCount` takes effect at once.
 */
export class PromptCatalog {
  readonly #options: ResolvedTestServerOptions;
  readonly #resources: ResourceCatalog;

  constructor(options: ResolvedTestServerOptions, resources: ResourceCatalog) {
    this.#options = options;
    this.#resources = resources;
  }

  get count(): number {
    return this.#options.prompts + this.#resources.prompts.length;
  }

  /** The definition of the prompt at listing position `index` (0 ≤ index < count). */
  at(index: number): Prompt {
    if (index < this.#options.prompts) return generatedPrompt(index);
    const fixture = this.#resources.prompts[index - this.#options.prompts];
    if (fixture === undefined) throw new RangeError(`no prompt at ${index}`);
    return fixture;
  }

  has(name: string): boolean {
    return this.#generatedIndex(name) !== undefined || this.#fixture(name) !== undefined;
  }

  /**
   * The `prompts/get` result of `name`, or undefined when there is no such prompt. A generated prompt answers a
   * user text message naming it and its arguments, plus (when there are resources) one embedding resource 0;
   * a fixture prompt answers the text message only.
   */
  get(name: string, args: Record<string, string> | undefined): GetPromptResult | undefined {
    const text = `${name} ${JSON.stringify(args ?? {})}`;
    const messages: PromptMessage[] = [{ role: 'user', content: { type: 'text', text } }];
    const index = this.#generatedIndex(name);
    if (index !== undefined) {
      const first = this.#resources.first();
      if (first !== undefined)
        messages.push({ role: 'user', content: { type: 'resource', resource: first.contents } });
      return { description: generatedPrompt(index).description, messages };
    }
    return this.#fixture(name) === undefined ? undefined : { messages };
  }

  #generatedIndex(name: string): number | undefined {
    const match = /^prompt_(0|[1-9]\d{0,9})$/.exec(name);
    if (match?.[1] === undefined) return undefined;
    const index = Number(match[1]);
    return index < this.#options.prompts ? index : undefined;
  }

  #fixture(name: string): FixturePrompt | undefined {
    return this.#resources.prompts.find((p) => p.name === name);
  }
}
