import { GatewayError } from '../errors.js';
import { isRecord } from '../payload.js';

/** `params.uri`, which names a resource. */
export function requireUri(params: Record<string, unknown>): string {
  const uri = params.uri;
  if (typeof uri !== 'string' || uri.length === 0) {
    throw GatewayError.invalidParams('params.uri must be a non-empty string naming a resource.');
  }
  return uri;
}

/** `params.name`, which names a tool or a prompt. */
export function requireName(params: Record<string, unknown>, noun: 'tool' | 'prompt'): string {
  const name = params.name;
  if (typeof name !== 'string' || name.length === 0) {
    throw GatewayError.invalidParams(
      `params.name must be a non-empty string naming a ${noun} (see ${noun}s/list).`,
    );
  }
  return name;
}

/**
 * `params.arguments`, when given, is an object of named arguments (a prompt's are strings, as the spec
 * shapes them); what they say is the upstream's to judge.
 */
export function checkArguments(params: Record<string, unknown>, noun: 'tool' | 'prompt'): void {
  const args = params.arguments;
  if (args === undefined) return;
  if (!isRecord(args)) {
    throw GatewayError.invalidParams(`params.arguments of a ${noun} must be an object of named arguments.`, {
      arguments: args,
    });
  }
  if (noun === 'prompt') {
    const bad = Object.entries(args).find(([, value]) => typeof value !== 'string');
    if (bad) {
      throw GatewayError.invalidParams(
        `params.arguments of a prompt are strings: argument '${bad[0]}' is ${JSON.stringify(bad[1])}.`,
        { argument: bad[0] },
      );
    }
  }
}

/**
 * The params without the downstream's progress token: the upstream gets its own (the SDK mints one
 * per upstream request when progress is wanted) and progress is relayed back under the downstream's.
 */
export function withoutProgressToken(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params._meta;
  if (!isRecord(meta) || !('progressToken' in meta)) return params;
  const { progressToken: _drop, ...rest } = meta;
  const copy = { ...params };
  if (Object.keys(rest).length > 0) copy._meta = rest;
  else delete copy._meta;
  return copy;
}
