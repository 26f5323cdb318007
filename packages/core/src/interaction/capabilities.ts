import { isRecord } from '../payload.js';

/** The client capability a server-to-client request needs (e.g. `elicitation.url`), or undefined. */
export function requiredCapability(
  method: string,
  params: Record<string, unknown> | undefined,
): string | undefined {
  switch (method) {
    case 'sampling/createMessage':
      return params?.tools === undefined ? 'sampling' : 'sampling.tools';
    case 'elicitation/create':
      return params?.mode === 'url' ? 'elicitation.url' : 'elicitation.form';
    case 'roots/list':
      return 'roots';
    default:
      return undefined;
  }
}

/**
 * Whether a client that declared `capabilities` can answer `method`; the capability it lacks otherwise.
 * An empty `elicitation: {}` declares form mode (what clients before URL mode declared).
 */
export function missingCapability(
  method: string,
  params: Record<string, unknown> | undefined,
  capabilities: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const required = requiredCapability(method, params);
  if (required === undefined) return method;
  const [feature, mode] = required.split('.') as [string, string | undefined];
  const declared = capabilities?.[feature];
  if (!isRecord(declared)) return required;
  if (mode === undefined) return undefined;
  if (isRecord(declared[mode])) return undefined;
  const formByDefault = feature === 'elicitation' && mode === 'form' && !('url' in declared);
  return formByDefault ? undefined : required;
}

/** Whether a client can be asked anything at all (so the gateway should pause timeouts for it). */
export function canBeAsked(capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  return ['sampling', 'elicitation', 'roots'].some((feature) => isRecord(capabilities?.[feature]));
}
