import type { Gateway } from '../gateway.js';
import { partsOf } from '../gateway-parts.js';
import type { ParamHeaderDeclaration } from './declarations.js';

/**
 * What the tool behind an exposed name declares for SEP-2243 `Mcp-Param-*` headers (`x-mcp-header` in
 * its input schema), as its upstream last listed it; undefined when it declares none or is unknown. The
 * HTTP listener checks a 2026-07-28 `tools/call`'s headers against it (`checkParamHeaders`).
 */
export function toolHeaders(
  gateway: Gateway,
  exposedName: string,
): readonly ParamHeaderDeclaration[] | undefined {
  const { tools, pool } = partsOf(gateway);
  const target = tools.index.resolve(exposedName);
  return target && pool.get(target.upstream)?.toolHeaders(target.name);
}
