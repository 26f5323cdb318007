import type { ServerOptions } from '@modelcontextprotocol/server';

const INSTRUCTIONS =
  'Switchyard gateway: the resources, tools, prompts and skills of several MCP servers, namespaced as "<server>+<uri>" and "<server>__<name>".';

/** Distinct capability sets kept (a reload or an upstream that comes and goes changes them). */
const KEPT = 8;

const byCapabilities = new Map<string, ServerOptions>();

/**
 * The options of a session's SDK `Server`: the gateway's capabilities, logging, and the instructions.
 * Sessions built while the capabilities are the same share one options object (its own deep copy of
 * them): the SDK copies the top level of `capabilities` and only reads the rest, so an idle session
 * need not hold a copy of its own.
 */
export function serverOptions(capabilities: Record<string, unknown>): ServerOptions {
  const key = JSON.stringify(capabilities);
  let options = byCapabilities.get(key);
  if (!options) {
    if (byCapabilities.size >= KEPT) byCapabilities.clear();
    options = { capabilities: { ...JSON.parse(key), logging: {} }, instructions: INSTRUCTIONS };
    byCapabilities.set(key, options);
  }
  return options;
}
