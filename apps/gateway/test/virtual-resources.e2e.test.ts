import type { TestServer } from '@switchyard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup, connectHttp, type GatewayProcess, httpUpstream, startGateway } from './support/harness.js';
import { listChangedCounter } from './support/named.js';

// resources/list_changed through virtual servers (DESIGN §13), through the real CLI and two testkit
// upstreams: a virtual server whose resource globs hide every URI that changed hears nothing of it; the
// root endpoint and a virtual server whose globs admit one do.

const shared = new Cleanup();
const cleanup = new Cleanup();
afterEach(() => cleanup.run());
afterAll(() => shared.run());

let gh: TestServer;
let ci: TestServer;
let gw: GatewayProcess;

const VIRTUAL = {
  // Everything of gh and ci but ci's resources (and templates).
  docs: { servers: ['gh', 'ci'], resources: { allow: ['gh+*'] } },
  // ci's static resources only.
  builds: { servers: ['ci'], resources: { allow: ['ci+test://ci/r/*'] } },
};

beforeAll(async () => {
  const ghUp = await httpUpstream(shared, { name: 'gh', tools: 1, prompts: 1, resources: 2 });
  const ciUp = await httpUpstream(shared, { name: 'ci', tools: 1, prompts: 1, resources: 2 });
  gh = ghUp.server;
  ci = ciUp.server;
  gw = await startGateway(shared, {
    mcpServers: { gh: { url: ghUp.url }, ci: { url: ciUp.url } },
    virtualServers: VIRTUAL,
  });
}, 60_000);

async function session(url: string) {
  const client = await connectHttp(cleanup, url);
  const resources = listChangedCounter(client, 'notifications/resources/list_changed');
  const prompts = listChangedCounter(client, 'notifications/prompts/list_changed');
  await Promise.all([resources.settle(), prompts.settle()]);
  return { resources, prompts };
}

/** Changes `server`'s resources (to `count` of them) and says so, as an upstream does. */
async function setResources(server: TestServer, count: number): Promise<void> {
  server.setResourceCount(count);
  await server.triggerListChanged();
}

describe('resources/list_changed on virtual servers', () => {
  it('reaches only the endpoints that expose a URI that changed', async () => {
    const whole = await session(gw.url);
    const docs = await session(`${gw.url}/docs`);
    const builds = await session(`${gw.url}/builds`);
    // A change the session does hear, of another kind, on the same ordered stream: once it has arrived,
    // so has any resources/list_changed sent to that session before it.
    const barrier = async (
      s: { prompts: ReturnType<typeof listChangedCounter> },
      server: TestServer,
      promptCount: number,
      what: string,
    ) => {
      await server.setPromptCount(promptCount);
      await s.prompts.next(what);
    };
    const restore = { gh: false, ci: false, ghPrompts: false, ciPrompts: false };
    try {
      // ci gains ci+test://ci/r/2: the root endpoint and builds hear it; docs, which hides ci's, not.
      await setResources(ci, 3);
      restore.ci = true;
      await Promise.all([
        whole.resources.next('root: ci+test://ci/r/2 added'),
        builds.resources.next('builds: ci+test://ci/r/2 added'),
      ]);
      await barrier(docs, gh, 2, 'docs: gh__prompt_1 added');
      restore.ghPrompts = true;
      expect(docs.resources.seen).toBe(0);

      // ci loses it again: the same two hear it, docs still not.
      await setResources(ci, 2);
      restore.ci = false;
      await Promise.all([
        whole.resources.next('root: ci+test://ci/r/2 removed'),
        builds.resources.next('builds: ci+test://ci/r/2 removed'),
      ]);
      await barrier(docs, gh, 1, 'docs: gh__prompt_1 removed');
      restore.ghPrompts = false;
      expect(docs.resources.seen).toBe(0);

      // gh gains gh+test://gh/r/2: docs admits it and hears it; builds exposes nothing of gh.
      await setResources(gh, 3);
      restore.gh = true;
      await Promise.all([
        whole.resources.next('root: gh+test://gh/r/2 added'),
        docs.resources.next('docs: gh+test://gh/r/2 added'),
      ]);
      await barrier(builds, ci, 2, 'builds: ci__prompt_1 added');
      restore.ciPrompts = true;
      expect(builds.resources.seen).toBe(2);

      // And loses it: heard, so that nothing of this test is still on its way when the next one starts.
      await setResources(gh, 2);
      restore.gh = false;
      await Promise.all([
        whole.resources.next('root: gh+test://gh/r/2 removed'),
        docs.resources.next('docs: gh+test://gh/r/2 removed'),
      ]);
      await barrier(builds, ci, 1, 'builds: ci__prompt_1 removed');
      restore.ciPrompts = false;
      expect([whole.resources.seen, docs.resources.seen, builds.resources.seen]).toEqual([4, 2, 2]);
    } finally {
      // Restored even when this test fails, so the next test's lists are not wrong because of it.
      if (restore.gh) await setResources(gh, 2);
      if (restore.ci) await setResources(ci, 2);
      if (restore.ghPrompts) await gh.setPromptCount(1);
      if (restore.ciPrompts) await ci.setPromptCount(1);
    }
  });

  it('an upstream that says its resources changed when its listing shows none reaches only whole lists', async () => {
    const whole = await session(gw.url);
    const docs = await session(`${gw.url}/docs`);
    const builds = await session(`${gw.url}/builds`);
    let restorePrompts = false;
    try {
      await ci.triggerListChanged();
      await whole.resources.next('root: ci said its resources changed');
      // docs and builds narrow ci's resources: a change their globs cannot see is not theirs.
      await ci.setPromptCount(2);
      restorePrompts = true;
      await Promise.all([
        docs.prompts.next('docs: ci__prompt_1 added'),
        builds.prompts.next('builds: ci__prompt_1 added'),
      ]);
      expect([docs.resources.seen, builds.resources.seen]).toEqual([0, 0]);
      await ci.setPromptCount(1);
      restorePrompts = false;
      await whole.prompts.next('root: ci__prompt_1 removed');
    } finally {
      if (restorePrompts) await ci.setPromptCount(1);
    }
  });
});

describe('resources a virtual server does not expose', () => {
  it('are refused as unknown however the URI is spelled, and never reach the upstream', async () => {
    const builds = await connectHttp(cleanup, `${gw.url}/builds`);
    const served = () => ci.stats.requests['resources/read'] ?? 0;
    const before = served();
    // As a URI nobody serves is refused (-32002 on the wire; the v2 client normalizes it to -32602).
    const UNKNOWN = { code: -32602, message: expect.stringContaining('Resource not found') };
    expect((await builds.readResource({ uri: 'ci+test://ci/r/0' })).contents[0]).toMatchObject({
      text: 'resource 0',
    });
    // Found from outside: the globs matched these as written (`ci+test://ci/r/*`), and an upstream that
    // resolves dot segments served what lies outside them.
    for (const uri of [
      'ci+test://ci/r/x/../../secret',
      'ci+test://ci/r/%2e%2e/secret',
      'ci+test://ci/r/./../s',
    ]) {
      await expect(builds.readResource({ uri }), uri).rejects.toMatchObject(UNKNOWN);
      await expect(builds.subscribeResource({ uri }), uri).rejects.toMatchObject(UNKNOWN);
    }
    expect(served() - before).toBe(1);
  });
});
