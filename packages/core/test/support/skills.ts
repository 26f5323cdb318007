import {
  memorySkillFiles,
  type SkillCatalog,
  type SkillSource,
  SkillsExtension,
  skillEntry,
} from '@modelcontextprotocol/server/ext/skills';
import type { Cleanup } from '@switchyard/testkit';
import { FixtureState, startConformanceHttp } from '@switchyard/testkit/conformance';
import type { SessionSink } from '../../src/context.js';
import type { GatewayError } from '../../src/errors.js';
import type { Gateway } from '../../src/gateway.js';
import { testRequest } from '../../src/testing.js';

/** A `SKILL.md` with the frontmatter the Agent Skills format requires. */
export function skillMd(name: string, description: string, body = ''): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\n${body}\n`;
}

/** A skills catalog from in-memory files (`<skill>/SKILL.md`, …), `pageSize` entries per page. */
export function catalogOf(files: Record<string, string>, pageSize = 1): Promise<SkillCatalog> {
  return SkillsExtension.load(memorySkillFiles(files), { pageSize, strict: true });
}

/**
 * Skills a server serves by URI but never lists (SEP-2640 allows an empty listing): `skills/get` and
 * `resources/read` answer for them, `skills/list` is empty.
 */
export async function unlistedSkills(files: Record<string, string>, skill: string): Promise<SkillsExtension> {
  const entry = await skillEntry(skill, files);
  const texts = new Map(Object.entries(files).map(([path, text]) => [`skill://${skill}/${path}`, text]));
  const source: SkillSource = {
    list: async () => ({ skills: [] }),
    get: async (uri) => (uri === entry.uri ? entry : undefined),
    read: async (uri) => {
      const text = texts.get(uri);
      return text === undefined ? undefined : { text, mimeType: 'text/markdown' };
    },
  };
  return new SkillsExtension({ source });
}

/**
 * The testkit's conformance fixture over Streamable HTTP (both eras; the gateway speaks 2026-07-28 to it),
 * serving `skills` (default: the fixture's own two skills, one per `skills/list` page).
 */
export async function skillsUpstream(cleanup: Cleanup, skills?: SkillsExtension): Promise<string> {
  const state = skills ? new FixtureState({ skills }) : await FixtureState.create();
  const http = await startConformanceHttp(state);
  cleanup.add(() => http.close());
  return http.url;
}

const session: SessionSink = {
  id: 'skills-test',
  transport: 'memory',
  identity: { id: 'test', groups: [], anonymous: true },
  notify: async () => {},
};

/** One request through the gateway's core (era-neutral: results keep `ttlMs` and `cacheScope`). */
function run(gateway: Gateway, method: string, params: Record<string, unknown>) {
  return gateway.handle(testRequest(method, params, { session }));
}

/** The result of one request through the gateway's core; its error is thrown. */
export async function handle(
  gateway: Gateway,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const outcome = await run(gateway, method, params);
  if (!outcome.ok) throw outcome.error;
  return outcome.result;
}

/** The error a request through the gateway's core ends with (a result fails the test). */
export async function handleError(
  gateway: Gateway,
  method: string,
  params: Record<string, unknown> = {},
): Promise<GatewayError> {
  const outcome = await run(gateway, method, params);
  if (outcome.ok) throw new Error(`${method} succeeded: ${JSON.stringify(outcome.result)}`);
  return outcome.error;
}

/** Every page of the gateway's `skills/list`, with explicit cursors. */
export async function listSkills(gateway: Gateway): Promise<{ pages: Record<string, unknown>[] }> {
  const pages: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await handle(gateway, 'skills/list', cursor === undefined ? {} : { cursor });
    pages.push(page);
    cursor = page.nextCursor as string | undefined;
  } while (cursor !== undefined && pages.length < 100);
  return { pages };
}

/** The `uri` of every skill on every page. */
export const skillUris = (pages: Record<string, unknown>[]) =>
  pages.flatMap((p) => (p.skills as { uri: string }[]).map((s) => s.uri));

/** Every child of a directory resource, walking `resources/directory/read` pages. */
export async function readDirectory(gateway: Gateway, uri: string): Promise<Record<string, unknown>[]> {
  const children: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await handle(
      gateway,
      'resources/directory/read',
      cursor === undefined ? { uri } : { uri, cursor },
    );
    children.push(...(page.resources as Record<string, unknown>[]));
    cursor = page.nextCursor as string | undefined;
    if (cursor === undefined) break;
  }
  return children;
}
