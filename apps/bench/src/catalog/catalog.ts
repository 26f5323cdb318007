/**
 * The catalog bench's tools and data (apps/bench/data): the generated services (services.json, in catalog
 * order) turned into realistic tools, deterministic for a seed: each entity of a service gets the generic
 * operations it lists (`VERBS`), each service its own actions; descriptions are picked from a few phrasings
 * per operation, so instances of a service (the 30,000-tool catalog) read differently. And the labelled task
 * phrasings (labelled.json), written by hand to paraphrase, not copy, the tools' descriptions: `labelled`
 * (even entries tune the ranking options, odd ones are held out), `blind` (written after the options were
 * frozen, never used to change them: the honest estimate for unseen phrasings) and `blind2` (written for
 * the search-recall branch from the tool names alone, measured once, at the end).
 */
import { readFileSync } from 'node:fs';

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
 * `^` boolean, `[]` array of strings, `=a,b,c` enum (`parseParams`).
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
  /** Which generic operations exist (`VERBS`), space-separated. */
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

export interface LabelledQuery {
  query: string;
  expected: string;
}

/** Same path from src/catalog and dist/catalog. */
function readData<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../data/${name}`, import.meta.url), 'utf8')) as T;
}

/** The generated services, in catalog order. */
export const SERVICES: readonly ServiceSpec[] = readData<ServiceSpec[]>('services.json');

const labelled = readData<Record<'labelled' | 'blind' | 'blind2', LabelledQuery[]>>('labelled.json');
export const LABELLED: readonly LabelledQuery[] = labelled.labelled;
export const LABELLED_BLIND: readonly LabelledQuery[] = labelled.blind;
export const LABELLED_BLIND_2: readonly LabelledQuery[] = labelled.blind2;

/** mulberry32: a small, fast, seeded generator (uniform in [0, 1)). */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

function pluralOf(entity: EntitySpec): string {
  if (entity.plural) return entity.plural;
  const { name } = entity;
  if (/[^aeiou]y$/.test(name)) return `${name.slice(0, -1)}ies`;
  if (/(?:s|x|ch|sh)$/.test(name)) return `${name}es`;
  return `${name}s`;
}

const spaced = (snake: string): string => snake.replaceAll('_', ' ');
const titled = (snake: string): string =>
  snake
    .split('_')
    .map((word) =>
      word.length <= 2 && word !== 'to' ? word.toUpperCase() : word[0]!.toUpperCase() + word.slice(1),
    )
    .join(' ');

interface Param {
  name: string;
  required: boolean;
  schema: Record<string, unknown>;
}

const PARAM =
  /^(?<name>[a-z0-9_]+)(?<array>\[\])?(?<markers>[!#^]*)(?:=(?<choices>[A-Za-z0-9_.,-]+))?(?::(?<text>.*))?$/;

/** Params from `name!:description|…` (`EntitySpec.fields`); a bare name takes its description from `shared`. */
export function parseParams(spec: string, shared: Record<string, string>): Param[] {
  if (spec.trim() === '') return [];
  return spec.split('|').map((item) => {
    const groups = PARAM.exec(item.trim())?.groups;
    if (!groups?.name) throw new Error(`bad param spec '${item}'`);
    const { name, array, markers = '', choices, text } = groups;
    const description = text ?? shared[name];
    if (description === undefined) throw new Error(`param '${name}' has no description`);
    let schema: Record<string, unknown>;
    if (choices) schema = { type: 'string', enum: choices.split(',') };
    else if (markers.includes('#')) schema = { type: 'integer', minimum: 0 };
    else if (markers.includes('^')) schema = { type: 'boolean' };
    else schema = { type: 'string' };
    if (array) schema = { type: 'array', items: schema };
    return { name, required: markers.includes('!'), schema: { ...schema, description } };
  });
}

function inputSchema(params: readonly Param[]): CatalogTool['inputSchema'] {
  const properties: Record<string, unknown> = {};
  for (const param of params) properties[param.name] = param.schema;
  const required = params.filter((param) => param.required).map((param) => param.name);
  return required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
}

const READ = { readOnlyHint: true };
const WRITE = { readOnlyHint: false, destructiveHint: false };
const DESTROY = { readOnlyHint: false, destructiveHint: true };
const ANNOTATIONS = { read: READ, write: WRITE, edit: { ...WRITE, idempotentHint: true }, destroy: DESTROY };
const PAGE =
  'limit#:Maximum number of results to return (1-100)|cursor:Pagination cursor from a previous response';
/** `fields` with no param required (the `!` marker is dropped from each spec, not from descriptions). */
const optional = (fields: string): string =>
  fields
    .split('|')
    .map((item) => {
      const at = item.indexOf(':');
      return at < 0 ? item.replaceAll('!', '') : item.slice(0, at).replaceAll('!', '') + item.slice(at);
    })
    .join('|');

/**
 * The generic operations an entity may list in `verbs` (data/verbs.json): the tool's name (`{s}`, `{p}`:
 * the entity's snake_case singular and plural), its annotations, its params and its phrasings (there `{s}`
 * and `{p}` are spaced, with `{where}`, `{gloss}`, the entity's `{id}` param, its `{fields}` (`{optional}`:
 * none required) and `{page}`).
 */
const VERBS =
  readData<
    Record<
      string,
      { name: string; annotations: keyof typeof ANNOTATIONS; params: string; phrasings: string[] }
    >
  >('verbs.json');

/**
 * Operations every entity gets when it has the first one, as servers generated from an API description
 * expose them (and as they make large catalogs: near-identical tools per resource are what search must
 * tell apart).
 */
const IMPLIED_VERBS: readonly [has: string, gets: string][] = [
  ['list', 'count'],
  ['list', 'export'],
  ['update', 'history'],
  ['get', 'watch'],
];

function verbsOf(entity: EntitySpec): string[] {
  const verbs = entity.verbs.split(' ');
  for (const [has, gets] of IMPLIED_VERBS) {
    if (verbs.includes(has) && !verbs.includes(gets)) verbs.push(gets);
  }
  return verbs;
}

const ACTION_READ =
  /^(?:list|get|search|find|show|read|count|export|check|preview|download|compare|describe|query|explain|validate|estimate|lookup|tail|diff)_/;
const ACTION_DESTROY =
  /^(?:delete|remove|purge|drop|revoke|terminate|cancel|void|wipe|kill|destroy|uninstall)_/;

function actionAnnotations(name: string): Record<string, boolean> {
  if (ACTION_READ.test(name)) return READ;
  if (ACTION_DESTROY.test(name)) return DESTROY;
  return WRITE;
}

/**
 * The tools of `service`, exposed as `<server>__<name>` for server `server` (the service's own name,
 * or an instance of it in the 30,000-tool catalog), descriptions picked with `random`.
 */
export function serviceTools(service: ServiceSpec, server: string, random: () => number): CatalogTool[] {
  const tools: CatalogTool[] = [];
  const add = (
    name: string,
    title: string,
    description: string,
    params: Param[],
    annotations: Record<string, boolean>,
  ) => {
    tools.push({
      name: `${server}__${name}`,
      server,
      title,
      description,
      inputSchema: inputSchema(params),
      annotations: { ...annotations },
    });
  };
  for (const entity of service.entities) {
    const plural = pluralOf(entity);
    const where = entity.where ? ` ${entity.where}` : '';
    const words: Record<string, string> = {
      s: spaced(entity.name),
      p: spaced(plural),
      where,
      gloss: entity.gloss,
      id: `${entity.name}_id`,
      fields: entity.fields,
      optional: optional(entity.fields),
      page: PAGE,
    };
    const fill = (text: string, vars = words) => text.replace(/\{(\w+)\}/g, (_, key: string) => vars[key]!);
    const scope = entity.scope
      ? entity.scope
          .split(' ')
          .map((name) => `${name}!`)
          .join('|')
      : '';
    for (const verbName of verbsOf(entity)) {
      const verb = VERBS[verbName];
      if (!verb) throw new Error(`${service.name}/${entity.name}: unknown verb '${verbName}'`);
      const name = fill(verb.name, { s: entity.name, p: plural });
      // Operations on one item by ID need no scope; listing, creating, searching and counting do.
      const scoped = ['list', 'create', 'search', 'export', 'count'].includes(verbName) && scope !== '';
      const spec = [scoped ? scope : '', fill(verb.params)].filter((part) => part !== '').join('|');
      add(
        name,
        titled(name),
        fill(pick(random, verb.phrasings)),
        parseParams(spec, service.params),
        ANNOTATIONS[verb.annotations],
      );
    }
  }
  for (const action of service.actions) {
    add(
      action.name,
      action.title ?? titled(action.name),
      action.description,
      parseParams(action.params, service.params),
      actionAnnotations(action.name),
    );
  }
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) throw new Error(`duplicate generated tool ${tool.name}`);
    names.add(tool.name);
  }
  return tools;
}

/** The teams of the further instances of each service in catalogs past one instance (`tracker-payments`). */
const TEAMS = ['payments', 'search', 'growth', 'platform', 'mobile', 'data', 'identity', 'infra', 'retail'];

export const SEED = 0x5eed_2027;

/**
 * `instances` copies of every generated service: the first named as the service (`tracker`), the
 * others after a team (`tracker-payments`), each with its own seeded phrasings.
 */
export function generatedTools(instances = 1, seed = SEED): CatalogTool[] {
  if (instances > TEAMS.length + 1) throw new Error(`at most ${TEAMS.length + 1} instances`);
  const random = seeded(seed);
  const tools: CatalogTool[] = [];
  for (let instance = 0; instance < instances; instance++) {
    for (const service of SERVICES) {
      const server = instance === 0 ? service.name : `${service.name}-${TEAMS[instance - 1]}`;
      tools.push(...serviceTools(service, server, random));
    }
  }
  return tools;
}

/** The first `size` tools of the real tools followed by enough generated instances. */
export function catalogOf(real: readonly CatalogTool[], size: number): CatalogTool[] {
  const perInstance = generatedTools(1).length;
  const instances = Math.max(1, Math.ceil((size - real.length) / perInstance));
  const all = [...real, ...generatedTools(instances)];
  if (all.length < size) throw new Error(`the generator makes ${all.length} tools, fewer than ${size}`);
  return all.slice(0, size);
}
