import {
  fromJsonSchema,
  type JsonSchemaType,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';

/** A string property of a tool or prompt input. */
export function stringProperty(description: string): JsonSchemaType {
  return { type: 'string', description };
}

// Compiling a validator costs more than building a server: share one per distinct schema, since the
// modern era builds a fresh server instance for every request.
const compiled = new Map<string, StandardSchemaWithJSON>();

function cached<T>(schema: JsonSchemaType): StandardSchemaWithJSON<T, T> {
  const key = JSON.stringify(schema);
  let entry = compiled.get(key);
  if (entry === undefined) {
    entry = fromJsonSchema(schema);
    compiled.set(key, entry);
  }
  return entry as StandardSchemaWithJSON<T, T>;
}

/**
 * An object input schema from plain JSON Schema (listed verbatim by `tools/list`, validated by the SDK),
 * so the fixture needs no schema library.
 */
export function objectInput<T = Record<string, never>>(
  properties: Record<string, JsonSchemaType> = {},
  required: string[] = [],
): StandardSchemaWithJSON<T, T> {
  return cached<T>({ type: 'object', properties, ...(required.length > 0 ? { required } : {}) });
}

/** An input schema given as a complete JSON Schema document (every keyword kept as written). */
export function jsonInput<T = Record<string, unknown>>(schema: JsonSchemaType): StandardSchemaWithJSON<T, T> {
  return cached<T>(schema);
}
