import type { ParamHeaderDeclaration } from './declarations.js';

// SEP-2243 (2026-07-28) header values: how a client writes an argument into its `Mcp-Param-<Name>`
// header and how a server checks it against the body. The same rules as the SDK's own client and
// server (`buildMcpParamHeaders`, `validateMcpParamHeaders`, not exported by 2.4.0).

export const PARAM_HEADER_PREFIX = 'Mcp-Param-';
const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CANONICAL_DECIMAL = /^-?\d+(\.\d+)?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The header text of an argument: strings as they are, numbers in decimal, booleans `true`/`false`;
 * undefined for anything else (non-finite numbers, unsafe integers, objects), which gets no header.
 */
export function paramText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  return Number.isInteger(value) && !Number.isSafeInteger(value) ? undefined : String(value);
}

/**
 * A header value as the spec writes it: plain when it is visible ASCII (or tab) without edge whitespace,
 * otherwise `=?base64?<UTF-8 in Base64>?=` (also for the empty string, and for a value that already
 * looks like that, to keep it unambiguous).
 *
 * @example
 * encodeParamValue('us-west1')   // 'us-west1'
 * encodeParamValue(' padded ')   // '=?base64?IHBhZGRlZCA=?='
 */
export function encodeParamValue(value: string): string {
  const plain =
    value.length > 0 &&
    value === value.trim() &&
    /^[\t\x20-\x7e]*$/.test(value) &&
    !(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX));
  return plain
    ? value
    : `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

/**
 * What a header value says: the decoded text of a `=?base64?…?=` value, any other value literally;
 * undefined when the Base64 is not canonical (bad padding or characters) or not UTF-8.
 */
export function decodeParamValue(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const b64 = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    return UTF8.decode(Buffer.from(b64, 'base64'));
  } catch {
    return undefined;
  }
}

/** The `Mcp-Param-*` headers of a call with these arguments (null and absent arguments get none). */
export function paramHeaders(
  declarations: readonly ParamHeaderDeclaration[],
  args: unknown,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const declaration of declarations) {
    const text = paramText(valueAt(args, declaration.path));
    if (text !== undefined)
      headers[`${PARAM_HEADER_PREFIX}${declaration.headerName}`] = encodeParamValue(text);
  }
  return headers;
}

/** Why a request's `Mcp-Param-*` headers do not match its arguments (answered with 400 and -32020). */
export interface ParamHeaderMismatch {
  /** The header at fault, e.g. `Mcp-Param-Region`. */
  header: string;
  /** What is wrong, in words. */
  body: string;
}

/**
 * Checks a call's `Mcp-Param-*` headers against its arguments, as a server must: for every declared
 * argument the body carries (not null), its header must be there, decode, and say the same value
 * (integers compared as numbers, so `42.0` matches 42). A header whose argument is absent is ignored.
 *
 * @param header reads one request header by name (case-insensitively), undefined when absent
 */
export function checkParamHeaders(
  declarations: readonly ParamHeaderDeclaration[],
  args: unknown,
  header: (name: string) => string | undefined,
): ParamHeaderMismatch | undefined {
  for (const { path, headerName, type } of declarations) {
    const name = `${PARAM_HEADER_PREFIX}${headerName}`;
    const value = valueAt(args, path);
    const text = paramText(value);
    if (text === undefined) continue;
    const at = path.join('.');
    const sent = header(name);
    if (sent === undefined)
      return {
        header: name,
        body: `the body carries ${at}=${JSON.stringify(value)} but the ${name} header is absent`,
      };
    const decoded = decodeParamValue(sent);
    if (decoded === undefined)
      return { header: name, body: `the ${name} header carries an invalid Base64 value` };
    const numeric = (type === 'integer' || type === 'number') && typeof value === 'number';
    const same = numeric && CANONICAL_DECIMAL.test(decoded) ? Number(decoded) === value : decoded === text;
    if (!same)
      return {
        header: name,
        body: `the ${name} header decodes to ${JSON.stringify(decoded)} but the body carries ${at}=${JSON.stringify(value)}`,
      };
  }
  return undefined;
}

/** The argument at `path`: own properties only (a tool may declare a property named `constructor`). */
function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
