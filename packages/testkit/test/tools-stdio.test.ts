import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ControlClient, controlClient, eventually } from '../src/index.js';
import { CLIENT_ROOTS, Cleanup, deferred, interactiveClient, until, within } from './helpers.js';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/cli.js');
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

beforeAll(() => {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: build first (pnpm --filter @switchyard/testkit build)`);
});

/** A stdio transport that serves a pinned client in place (no second process for an era probe). */
class InPlace extends StdioClientTransport {}

/** Spawns the CLI over stdio with tools and prompts, connects an interactive client, reads the control URL. */
async function spawnStdio(era: 'legacy' | 'modern-pinned') {
  const dir = await mkdtemp(join(tmpdir(), 'testkit-tools-'));
  cleanup.add(() => rm(dir, { recursive: true, force: true }));
  const controlFile = join(dir, 'control.url');
  const args = [CLI, '--name', 'pipe', '--resources', '2', '--tools', '2', '--tool-name', 'a b.c'];
  args.push('--behavior-tools', '--prompts', '1', '--page-size', '4', '--control-file', controlFile);
  if (era !== 'legacy') args.push('--modern');
  const transport = new InPlace({ command: process.execPath, args, stderr: 'pipe' });
  const { client, inputs } = interactiveClient(era, `stdio-${era}`);
  await within(client.connect(transport), 10_000, 'stdio connect');
  cleanup.add(() => client.close());
  expect(client.getProtocolEra()).toBe(era === 'legacy' ? 'legacy' : 'modern');
  await until(() => existsSync(controlFile), 5000, 'control file');
  const control = controlClient((await readFile(controlFile, 'utf8')).trim());
  return { client, inputs, control };
}

function text(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return first?.type === 'text' ? (first.text ?? '') : JSON.stringify(result);
}

/** Polls the control API until the server reports no tools/call handler running. */
async function idle(control: ControlClient): Promise<void> {
  await eventually(async () => (await control.stats()).activeToolCalls === 0, 'slow handler stopped', 5000);
}

async function exerciseTools(
  client: Client,
  control: ControlClient,
  inputs: ReturnType<typeof interactiveClient>['inputs'],
) {
  const { tools } = await client.listTools(undefined, { cacheMode: 'bypass' });
  expect(tools.map((t) => t.name)).toEqual([
    'tool_0',
    'tool_1',
    'a b.c',
    ...['echo', 'slow', 'fail', 'throw', 'link', 'elicit', 'sample', 'roots', 'log'],
  ]);
  expect((await client.callTool({ name: 'a b.c', arguments: { text: 't' } })).structuredContent).toEqual({
    tool: 'a b.c',
    arguments: { text: 't' },
  });
  const elicited = await client.callTool({ name: 'elicit', arguments: { message: 'Q?' } });
  expect(JSON.parse(text(elicited))).toEqual({ action: 'accept', content: { answer: 'forty-two' } });
  expect(inputs.elicitations).toEqual([expect.objectContaining({ message: 'Q?' })]);
  expect(text(await client.callTool({ name: 'sample', arguments: { prompt: 'p' } }))).toBe('sampled: p');
  expect(JSON.parse(text(await client.callTool({ name: 'roots', arguments: {} })))).toEqual(CLIENT_ROOTS);
  const linked = await client.callTool({ name: 'link', arguments: {} });
  expect(linked.content?.[0]).toMatchObject({ type: 'resource_link', uri: 'test://pipe/r/0' });

  // 200 ms between notifications: the SDK client drops progress that reaches it in the same read as the
  // result, which a loaded machine (a child scheduled late) makes likely with short gaps.
  const progress: number[] = [];
  const slow = await client.callTool(
    { name: 'slow', arguments: { ms: 600, steps: 3 } },
    { onprogress: (p) => progress.push(p.progress) },
  );
  expect(text(slow)).toBe('slept 600 ms');
  expect(progress).toEqual([1, 2, 3]);

  const abort = new AbortController();
  const first = deferred<void>();
  const pending = client.callTool(
    { name: 'slow', arguments: { ms: 60_000, steps: 6000 } },
    { signal: abort.signal, onprogress: () => first.resolve() },
  );
  await within(first.promise, 5000, 'first progress');
  abort.abort(new Error('test cancels'));
  await expect(pending).rejects.toThrow();
  await idle(control);
}

describe('tools and prompts over stdio (CLI)', () => {
  it('legacy era: behaviour tools, named tools, cancellation, and list_changed driven by the control API', async () => {
    const { client, inputs, control } = await spawnStdio('legacy');
    await exerciseTools(client, control, inputs);
    const toolsChanged = deferred<void>();
    const promptsChanged = deferred<void>();
    client.setNotificationHandler('notifications/tools/list_changed', () => toolsChanged.resolve());
    client.setNotificationHandler('notifications/prompts/list_changed', () => promptsChanged.resolve());
    await control.tools(3);
    await within(toolsChanged.promise, 3000, 'tools/list_changed over stdio');
    await control.prompts(2);
    await within(promptsChanged.promise, 3000, 'prompts/list_changed over stdio');
    expect((await client.listPrompts(undefined, { cacheMode: 'bypass' })).prompts).toHaveLength(2);
    const stats = await control.stats();
    // One tools/call per interactive tool: the SDK's legacy shim asked the client within the call.
    expect(stats.toolCalls).toMatchObject({ elicit: 1, sample: 1, roots: 1, slow: 2, 'a b.c': 1 });
    expect(stats.cancelled).toBe(1);
  });

  it('modern era: input-required round trips, cancellation, and list_changed on subscriptions/listen', async () => {
    const { client, inputs, control } = await spawnStdio('modern-pinned');
    await exerciseTools(client, control, inputs);
    const subscription = await within(
      client.listen({ toolsListChanged: true, promptsListChanged: true }),
      5000,
      'stdio listen ack',
    );
    cleanup.add(() => subscription.close());
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, promptsListChanged: true });
    const toolsChanged = deferred<void>();
    const promptsChanged = deferred<void>();
    client.setNotificationHandler('notifications/tools/list_changed', () => toolsChanged.resolve());
    client.setNotificationHandler('notifications/prompts/list_changed', () => promptsChanged.resolve());
    await control.tools(3);
    await within(toolsChanged.promise, 3000, 'tools/list_changed on stdio listen');
    await control.promptsListChanged();
    await within(promptsChanged.promise, 3000, 'prompts/list_changed on stdio listen');
    expect((await client.listTools(undefined, { cacheMode: 'bypass' })).tools).toHaveLength(13);
    // Each interactive tool: the first call, then the client's retry carrying the input response.
    expect((await control.stats()).toolCalls).toMatchObject({ elicit: 2, sample: 2, roots: 2 });
  });
});
