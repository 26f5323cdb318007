// SEP-2243 (2026-07-28): which tool arguments a tool's `inputSchema` marks with `x-mcp-header`. The SDK
// has this check (`scanXMcpHeaderDeclarations`) but 2.4.0 does not export it; this is the same rule, so
// the gateway judges a tool exactly as an SDK client or server would.

/** One `x-mcp-header` declaration: the argument at `path` is mirrored in `Mcp-Param-<headerName>`. */
export interface ParamHeaderDeclaration {
  /** The chain of `properties` keys that leads to the argument. */
  readonly path: readonly string[];
  readonly headerName: string;
  /** `string`, `integer` or `boolean` (`number` is invalid, yet servers still check it). */
  readonly type: string;
}

/** A tool's declarations, or why they are invalid (a client then leaves the tool out). */
export type ParamHeaderScan =
  | { valid: true; declarations: ParamHeaderDeclaration[] }
  | { valid: false; reason: string; declarations?: ParamHeaderDeclaration[] };

const KEY = 'x-mcp-header';
/** RFC 9110 `token`: no spaces, control characters or delimiters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PERMITTED_TYPES = new Set(['string', 'integer', 'boolean']);
/** Where a declaration is not statically reachable through `properties`, so not allowed. */
const UNREACHABLE_KEYWORDS = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
/** Keywords whose value maps names to subschemas. */
const MAP_KEYWORDS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

/**
 * The `x-mcp-header` declarations of one tool's `inputSchema`, walked through `properties` at any depth,
 * with every constraint the spec puts on them: a non-empty RFC 9110 token, unique ignoring case, on a
 * `string`/`integer`/`boolean` property reachable only through `properties`. A `number` property is the
 * one fault that still returns the declarations (servers check those headers all the same).
 *
 * @example
 * scanParamHeaders({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } })
 * // { valid: true, declarations: [{ path: ['region'], headerName: 'Region', type: 'string' }] }
 */
export function scanParamHeaders(inputSchema: unknown): ParamHeaderScan {
  const declarations: ParamHeaderDeclaration[] = [];
  const seen = new Map<string, string>();
  let numberFault: string | undefined;
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== 'object') return undefined;
    const schema = node as Record<string, unknown>;
    if (KEY in schema) {
      const at = path.length === 0 ? '<root>' : path.join('.');
      if (!reachable || path.length === 0)
        return `${at}: x-mcp-header is only permitted on properties reachable through 'properties' alone`;
      const name = schema[KEY];
      if (typeof name !== 'string' || name.length === 0)
        return `${at}: x-mcp-header must be a non-empty string`;
      if (!TOKEN.test(name)) return `${at}: x-mcp-header '${name}' is not a valid RFC 9110 token`;
      const type = typeof schema.type === 'string' ? schema.type : undefined;
      if (type === undefined || !PERMITTED_TYPES.has(type)) {
        const fault = `${at}: x-mcp-header is only permitted on string, integer and boolean properties; got ${type ?? '<none>'}`;
        if (type !== 'number') return fault;
        numberFault ??= fault;
      }
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `x-mcp-header '${name}' is not unique ignoring case (also '${prior}')`;
      seen.set(name.toLowerCase(), name);
      declarations.push({ path, headerName: name, type: type as string });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault !== undefined) return fault;
      }
    }
    for (const keyword of UNREACHABLE_KEYWORDS) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : MAP_KEYWORDS.has(keyword) && sub !== null && typeof sub === 'object'
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault !== undefined) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  if (fault !== undefined) return { valid: false, reason: numberFault ?? fault };
  return numberFault === undefined
    ? { valid: true, declarations }
    : { valid: false, reason: numberFault, declarations };
}
