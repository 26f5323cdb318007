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
  // Read first: Node merges the context given to `nextResolve` into the one it passed here.
  const importer = context.parentURL;
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const notFound = (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND';
    if (!notFound || gateway === undefined || !CORE.test(specifier)) throw error;
    try {
      return await nextResolve(specifier, { ...context, parentURL: gateway });
    } catch (fallback) {
      // Named as the plugin's import (a subpath core does not export), not as one of the gateway's.
      const failed = new Error(
        `Cannot import '${specifier}' in ${importer ?? 'a plugin'}: its folder has no ` +
          `@switchyard/core, and the gateway's refused it: ${(fallback as Error).message}`,
      );
      Object.assign(failed, { code: (fallback as { code?: string }).code });
      throw failed;
    }
  }
}
