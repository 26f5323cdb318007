/** The shapes of the catalog bench: tools as a client sees them, and the specs the generator reads. */

/** A tool as `tools/list` answers it through the gateway (exposed name), with the server it comes from. */
export interface CatalogTool {
  name: string;
  server: string;
  title?: string;
  description?: string;
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: string[] };
  annotations?: Record<string, unknown>;
}

/**
 * A resource a generated service manages. `fields` is a list of `spec:description` items separated
 * by `|`, where `spec` is a snake_case name followed by markers: `!` required on create, `#` integer,
 * `^` boolean, `[]` array of strings, `=a,b,c` enum (generate.ts `parseParams`).
 */
export interface EntitySpec {
  /** Singular snake_case name (`pull_request`). */
  name: string;
  /** When the plural is not the regular one. */
  plural?: string;
  /** What one is, for descriptions ("a proposed change to merge one branch into another"). */
  gloss: string;
  /** Where it lives, for descriptions ("in a repository"), and the service params that locate it. */
  where?: string;
  scope?: string;
  fields: string;
  /** Which generic operations exist (generate.ts `VERBS`), space-separated. */
  verbs: string;
}

/** A tool a service has beyond the generic operations on its entities. */
export interface ActionSpec {
  name: string;
  title?: string;
  description: string;
  /** Params as in `EntitySpec.fields`; a bare name refers to one of the service's `params`. */
  params: string;
}

export interface ServiceSpec {
  /** The server name (`tracker`), lower-case `[a-z0-9-]`. */
  name: string;
  /** Params shared by several tools of the service, by name: their descriptions. */
  params: Record<string, string>;
  entities: EntitySpec[];
  actions: ActionSpec[];
}
