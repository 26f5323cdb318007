import type { Client } from '@modelcontextprotocol/client';
import { Gateway, type Identity, setupPlugins, silentLogger } from '@switchyard/core';
import { Cleanup } from '@switchyard/testkit';
import { FixtureState, startConformanceHttp } from '@switchyard/testkit/conformance';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import access, { type AccessOptions } from '../src/index.js';
import { alice, bob, connect, FORBIDDEN } from './support.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const GREETING = 'docs+skill://conformance-greeting/SKILL.md';
const SUMMARY = 'docs+skill://conformance-summary/SKILL.md';
const REFERENCES = 'docs+skill://conformance-greeting/references';

/** The access plugin in front of the conformance fixture's skills (SEP-2640), as upstream `docs`. */
async function gatewayWith(options: AccessOptions): Promise<Gateway> {
  const fixture = await startConformanceHttp(await FixtureState.create());
  cleanup.add(() => fixture.close());
  const plugins = await setupPlugins([{ plugin: access, options, source: 'test' }], silentLogger);
  const upstream = { name: 'docs', prefix: true, timeoutMs: 5_000 };
  const transport = { kind: 'http' as const, url: fixture.url, headers: {} };
  const gateway = new Gateway({ upstreams: [{ ...upstream, transport }], plugins, logger: silentLogger });
  cleanup.add(() => gateway.close());
  await gateway.start();
  return gateway;
}

const as = (gateway: Gateway, identity: Identity) => connect(cleanup, gateway, identity);

/** The extension's methods are not in the SDK client's schema table: results are taken as they come. */
const ANY_RESULT = z.looseObject({});

const call = (client: Client, method: string, params: Record<string, unknown>) =>
  client.request({ method, params } as never, ANY_RESULT) as Promise<Record<string, unknown>>;

async function listedSkills(client: Client): Promise<string[]> {
  const uris: string[] = [];
  let cursor: string | undefined;
  do {
    const page = (await call(client, 'skills/list', cursor ? { cursor } : {})) as {
      skills: { uri: string }[];
      nextCursor?: string;
    };
    uris.push(...page.skills.map((s) => s.uri));
    cursor = page.nextCursor;
  } while (cursor);
  return uris;
}

describe('skills under access rules', () => {
  it('hides and refuses a skill whose files the caller may not read, whatever method reaches it', async () => {
    const gateway = await gatewayWith({
      default: 'allow',
      rules: [{ effect: 'deny', clients: ['bob'], uris: ['docs+skill://conformance-greeting/**'] }],
    });
    const [a, b] = [await as(gateway, alice), await as(gateway, bob)];
    expect((await listedSkills(a)).sort()).toEqual([GREETING, SUMMARY]);
    expect(await listedSkills(b)).toEqual([SUMMARY]);
    for (const [method, uri] of [
      ['skills/get', GREETING],
      ['resources/read', GREETING],
      ['resources/directory/read', REFERENCES],
    ] as const) {
      await expect(call(b, method, { uri }), method).rejects.toMatchObject(FORBIDDEN);
    }
    expect(await call(b, 'skills/get', { uri: SUMMARY })).toMatchObject({ skill: { uri: SUMMARY } });
  });

  it('treats a skill with one unreadable file as unreadable, and leaves that file out of directories', async () => {
    const gateway = await gatewayWith({
      default: 'allow',
      rules: [{ effect: 'deny', clients: ['bob'], uris: [`${REFERENCES}/**`] }],
    });
    const b = await as(gateway, bob);
    expect(await listedSkills(b)).toEqual([SUMMARY]);
    await expect(call(b, 'skills/get', { uri: GREETING })).rejects.toMatchObject(FORBIDDEN);
    const children: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await call(b, 'resources/directory/read', {
        uri: 'docs+skill://conformance-greeting',
        ...(cursor ? { cursor } : {}),
      })) as { resources: { uri: string }[]; nextCursor?: string };
      children.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor);
    expect(children).toEqual([GREETING]);
  });

  it('lets rules name the skills methods', async () => {
    const gateway = await gatewayWith({
      default: 'allow',
      rules: [{ effect: 'deny', clients: ['bob'], methods: ['skills/list', 'skills/get'] }],
    });
    const b = await as(gateway, bob);
    await expect(listedSkills(b)).rejects.toMatchObject(FORBIDDEN);
    await expect(call(b, 'skills/get', { uri: SUMMARY })).rejects.toMatchObject(FORBIDDEN);
    expect(await call(b, 'resources/read', { uri: SUMMARY })).toMatchObject({ contents: [{ uri: SUMMARY }] });
  });
});
