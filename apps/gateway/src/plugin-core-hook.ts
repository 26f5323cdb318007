/**
 * Module resolution hooks (registered by `shareCoreWithPlugins`, run on Node's loader thread): an import
 * of `@switchyard/core` (or a subpath) that does not resolve from the importing file resolves from the
 * gateway instead. An import that resolves as it is keeps its own resolution.
 */
type Resolved = { url: string; format?: string | null; shortCircuit?: boolean };
type ResolveContext = { parentURL?: string; conditions: string[]; importAttributes: Record<string, string> };
type NextResolve = (specifier: string, context?: Partial<ResolveContext>) => Promise<Resolved>;

/** The gateway module the fallback resolves from (a file URL); set by `initialize`. */
let gateway: string | undefined;

export function initialize(data: { gateway: string }): void {
  gateway = data.gateway;
}

const CORE = /^@switchyard\/core(?:\/|$)/;

export async function resolve(
  specifier: string,
  context: ResolveContext,
  nextResolve: NextResolve,
): Promise<Resolved> {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const notFound = (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND';
    if (!notFound || gateway === undefined || !CORE.test(specifier)) throw error;
    return nextResolve(specifier, { ...context, parentURL: gateway });
  }
}
