/**
 * The generated catalog: realistic tools of made-up services (data/services.json), deterministic for a seed.
 * Each entity of a service gets the generic operations it lists (`VERBS`), each service its own actions;
 * descriptions are picked from a few phrasings per operation by a seeded generator, so instances of the
 * same service (the 30,000-tool catalog) read differently.
 */
import type { CatalogTool, EntitySpec, ServiceSpec } from './model.js';

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

const PARAM = /^([a-z0-9_]+)(\[\])?([!#^]*)(?:=([A-Za-z0-9_.,-]+))?(?::(.*))?$/;

/** Params from `name!:description|…` (model.ts); a bare name takes its description from `shared`. */
export function parseParams(spec: string, shared: Record<string, string>): Param[] {
  if (spec.trim() === '') return [];
  return spec.split('|').map((item) => {
    const match = PARAM.exec(item.trim());
    if (!match) throw new Error(`bad param spec '${item}'`);
    const [, name, array, markers = '', choices, text] = match as unknown as [
      string,
      string,
      string?,
      string?,
      string?,
      string?,
    ];
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

interface Words {
  s: string;
  p: string;
  where: string;
  gloss: string;
}

interface Verb {
  /** The tool's own name for an entity (`list_issues`). */
  name: (singular: string, plural: string) => string;
  phrasings: readonly ((w: Words) => string)[];
  /** Params besides the scope: `id` is the name of the entity's id param (`issue_id`), `fields` its fields. */
  params: (id: string, fields: string, w: Words) => string;
  annotations: Record<string, boolean>;
}

const READ = { readOnlyHint: true };
const WRITE = { readOnlyHint: false, destructiveHint: false };
const DESTROY = { readOnlyHint: false, destructiveHint: true };
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

/** The generic operations an entity may list in `verbs`. */
export const VERBS: Record<string, Verb> = {
  list: {
    name: (_s, p) => `list_${p}`,
    phrasings: [
      (w) => `List ${w.p}${w.where}. Results are paginated: pass the returned cursor to fetch the next page.`,
      (w) => `Returns ${w.p}${w.where}, newest first, one page at a time.`,
      (w) => `Get a page of ${w.p}${w.where}, optionally filtered.`,
    ],
    params: () => PAGE,
    annotations: READ,
  },
  get: {
    name: (s) => `get_${s}`,
    phrasings: [
      (w) => `Fetch one ${w.s} by ID with all of its fields.`,
      (w) => `Returns the full details of a single ${w.s}.`,
      (w) => `Look up a ${w.s} by its identifier.`,
    ],
    params: (id, _fields, w) => `${id}!:ID of the ${w.s}`,
    annotations: READ,
  },
  create: {
    name: (s) => `create_${s}`,
    phrasings: [
      (w) => `Create a new ${w.s}${w.where}. A ${w.s} is ${w.gloss}.`,
      (w) => `Adds a ${w.s} (${w.gloss})${w.where} and returns it.`,
    ],
    params: (_id, fields) => fields,
    annotations: WRITE,
  },
  update: {
    name: (s) => `update_${s}`,
    phrasings: [
      (w) => `Change fields of an existing ${w.s}; fields you leave out keep their current value.`,
      (w) => `Modify a ${w.s}. Only the supplied fields are updated.`,
    ],
    params: (id, fields, w) => `${id}!:ID of the ${w.s}|${optional(fields)}`,
    annotations: { ...WRITE, idempotentHint: true },
  },
  delete: {
    name: (s) => `delete_${s}`,
    phrasings: [
      (w) => `Delete a ${w.s} permanently. This cannot be undone.`,
      (w) => `Removes the ${w.s} and everything attached to it.`,
    ],
    params: (id, _fields, w) => `${id}!:ID of the ${w.s}`,
    annotations: DESTROY,
  },
  search: {
    name: (_s, p) => `search_${p}`,
    phrasings: [
      (w) => `Full-text search across ${w.p}${w.where} by keyword.`,
      (w) => `Find ${w.p} whose text matches a query string.`,
    ],
    params: () => `query!:Words to look for|${PAGE}`,
    annotations: READ,
  },
  archive: {
    name: (s) => `archive_${s}`,
    phrasings: [
      (w) => `Archive a ${w.s}: it disappears from default views but can be brought back.`,
      (w) => `Moves a ${w.s} to the archive, hiding it without deleting it.`,
    ],
    params: (id, _fields, w) => `${id}!:ID of the ${w.s}`,
    annotations: WRITE,
  },
  restore: {
    name: (s) => `restore_${s}`,
    phrasings: [
      (w) => `Bring back a ${w.s} that was archived or deleted.`,
      (w) => `Undo the archiving or deletion of a ${w.s}.`,
    ],
    params: (id, _fields, w) => `${id}!:ID of the ${w.s}`,
    annotations: WRITE,
  },
  export: {
    name: (_s, p) => `export_${p}`,
    phrasings: [
      (w) => `Export ${w.p}${w.where} to a CSV or JSON file for reporting or backup.`,
      (w) => `Download every ${w.s}${w.where} as a spreadsheet-friendly file.`,
    ],
    params: () => 'format=csv,json:File format of the export',
    annotations: READ,
  },
  history: {
    name: (s) => `get_${s}_history`,
    phrasings: [
      (w) => `Show the change log of a ${w.s}: who changed what and when.`,
      (w) => `Returns the audit trail of edits made to a ${w.s}.`,
    ],
    params: (id, _fields, w) => `${id}!:ID of the ${w.s}|${PAGE}`,
    annotations: READ,
  },
  comments: {
    name: (s) => `list_${s}_comments`,
    phrasings: [
      (w) => `Read the discussion thread on a ${w.s}.`,
      (w) => `Returns the comments left on a ${w.s}, oldest first.`,
    ],
    params: (id, _fields, w) => `${id}!:ID of the ${w.s}|${PAGE}`,
    annotations: READ,
  },
  comment: {
    name: (s) => `add_${s}_comment`,
    phrasings: [
      (w) => `Post a comment on a ${w.s}.`,
      (w) => `Adds a note to the discussion of a ${w.s}; Markdown is supported.`,
    ],
    params: (id, _fields, w) => `${id}!:ID of the ${w.s}|body!:Comment text in Markdown`,
    annotations: WRITE,
  },
  watch: {
    name: (s) => `watch_${s}`,
    phrasings: [
      (w) => `Subscribe to notifications when a ${w.s} changes.`,
      (w) => `Follow a ${w.s} to be alerted about every update to it.`,
    ],
    params: (id, _fields, w) =>
      `${id}!:ID of the ${w.s}|notify_via=email,push,none:Where notifications are sent`,
    annotations: WRITE,
  },
  count: {
    name: (_s, p) => `count_${p}`,
    phrasings: [
      (w) => `Count ${w.p}${w.where} matching optional filters without returning them.`,
      (w) => `Returns how many ${w.p} exist${w.where}.`,
    ],
    params: () => '',
    annotations: READ,
  },
  bulk: {
    name: (_s, p) => `bulk_update_${p}`,
    phrasings: [
      (w) => `Apply the same change to many ${w.p} at once.`,
      (w) => `Updates a batch of ${w.p} in one request; each is changed the same way.`,
    ],
    params: (id, fields, w) => `${id}s[]!:IDs of the ${w.p} to change|${optional(fields)}`,
    annotations: { ...WRITE, idempotentHint: true },
  },
  duplicate: {
    name: (s) => `duplicate_${s}`,
    phrasings: [
      (w) => `Make a copy of a ${w.s} with a new ID.`,
      (w) => `Clones an existing ${w.s}, including its settings.`,
    ],
    params: (id, _fields, w) => `${id}!:ID of the ${w.s}|new_name:Name for the copy`,
    annotations: WRITE,
  },
  permissions: {
    name: (s) => `list_${s}_permissions`,
    phrasings: [
      (w) => `Show who can view or edit a ${w.s}.`,
      (w) => `Returns the users and groups with access to a ${w.s}.`,
    ],
    params: (id, _fields, w) => `${id}!:ID of the ${w.s}`,
    annotations: READ,
  },
  share: {
    name: (s) => `share_${s}`,
    phrasings: [
      (w) => `Grant a user or group access to a ${w.s}.`,
      (w) => `Gives someone viewer, editor or owner rights on a ${w.s}.`,
    ],
    params: (id, _fields, w) =>
      `${id}!:ID of the ${w.s}|principal!:User or group to grant access to|role=viewer,editor,owner:Access level`,
    annotations: WRITE,
  },
};

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
    const w: Words = {
      s: spaced(entity.name),
      p: spaced(plural),
      where: entity.where ? ` ${entity.where}` : '',
      gloss: entity.gloss,
    };
    const id = `${entity.name}_id`;
    const scope = entity.scope
      ? entity.scope
          .split(' ')
          .map((name) => `${name}!`)
          .join('|')
      : '';
    for (const verbName of verbsOf(entity)) {
      const verb = VERBS[verbName];
      if (!verb) throw new Error(`${service.name}/${entity.name}: unknown verb '${verbName}'`);
      const name = verb.name(entity.name, plural);
      const own = verb.params(id, entity.fields, w);
      // Operations on one item by ID need no scope; listing, creating, searching and counting do.
      const scoped = ['list', 'create', 'search', 'export', 'count'].includes(verbName) && scope !== '';
      const spec = [scoped ? scope : '', own].filter((part) => part !== '').join('|');
      add(
        name,
        titled(name),
        pick(random, verb.phrasings)(w),
        parseParams(spec, service.params),
        verb.annotations,
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
