import { type Outcome, SECRETS_FINDINGS_KEY } from '@switchyard/core';
import { testRequest } from '@switchyard/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { secretsMiddleware } from '../src/middleware.js';
import { resolveSecretsOptions, type SecretsOptions } from '../src/options.js';
import { recommendedScanner } from '../src/scanner.js';
import { DEFAULT_LIMITS } from '../src/walker.js';
import { AWS_KEY_ID, AWS_PAIR, AWS_SECRET, GITHUB_TOKEN, PRIVATE_KEY, SLACK_TOKEN } from './fixtures.js';

const scanner = recommendedScanner();

function middleware(options: SecretsOptions = {}, limits = DEFAULT_LIMITS) {
  const report = { found: vi.fn(), refused: vi.fn() };
  return { run: secretsMiddleware(resolveSecretsOptions(options), scanner, limits, report), report };
}

const answer = (result: Record<string, unknown>) =>
  vi.fn(async (): Promise<Outcome> => ({ ok: true, result }));
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
const errorOf = (outcome: Outcome) => (outcome.ok ? undefined : outcome.error);

describe('arguments', () => {
  it('refuse a credential before the upstream, naming the rule and not the credential', async () => {
    const { run, report } = middleware();
    const ctx = testRequest('tools/call', { name: 'docs__echo', arguments: { text: `use ${GITHUB_TOKEN}` } });
    const next = answer(text('never'));
    const outcome = await run(ctx, next);
    expect(next).not.toHaveBeenCalled();
    const error = errorOf(outcome)!;
    expect(error.code).toBe(-32010);
    expect(error.data).toEqual({ reason: 'secret_detected', rules: ['github'], where: 'arguments' });
    expect(error.message).toContain('github');
    expect(JSON.stringify(error.toJSON())).not.toContain(GITHUB_TOKEN);
    // the plugins outside see the redacted params and the rule names, never the token
    expect(ctx.params).toEqual({ name: 'docs__echo', arguments: { text: 'use [REDACTED:github]' } });
    expect(ctx.state.get(SECRETS_FINDINGS_KEY)).toEqual(['github']);
    expect(report.found).toHaveBeenCalledWith('arguments', 'tools/call', ['github']);
    expect(JSON.stringify(report.found.mock.calls)).not.toContain(GITHUB_TOKEN);
  });

  it("redact where the request was routed too: the audit record's upstreamUri held the credential", async () => {
    // Found from outside: the audit line of a refused read had `upstreamUri: "test://docs/ghp_…"`.
    const { run } = middleware();
    const uri = `docs+test://docs/${GITHUB_TOKEN}`;
    const ctx = testRequest('resources/read', { uri });
    ctx.target = { kind: 'resource', upstream: 'docs', uri: `test://docs/${GITHUB_TOKEN}`, exposed: uri };
    const outcome = await run(ctx, answer({}));
    expect(errorOf(outcome)?.data).toMatchObject({ reason: 'secret_detected', rules: ['github'] });
    expect(ctx.target).toEqual({
      kind: 'resource',
      upstream: 'docs',
      uri: 'test://docs/[REDACTED:github]',
      exposed: 'docs+test://docs/[REDACTED:github]',
    });
  });

  it.each([
    ['prompts/get', { name: 'p', arguments: { topic: SLACK_TOKEN } }, 'slack'],
    [
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: AWS_PAIR } },
      'aws',
    ],
    ['tools/call', { name: 'x', arguments: { [GITHUB_TOKEN]: 1 } }, 'github'],
    ['tools/call', { name: 'x', arguments: { deep: [[{ pem: PRIVATE_KEY }]] } }, 'privatekey'],
    ['tools/call', { name: 'x', arguments: { aws_secret_access_key: AWS_SECRET } }, 'aws'],
    ['resources/read', { uri: `https://x.test/?token=${GITHUB_TOKEN}` }, 'github'],
    // An AWS access key id alone is a credential too (secretlint scans ids only with enableIDScanRule).
    ['tools/call', { name: 'x', arguments: { config: { aws: [{ accessKeyId: AWS_KEY_ID }] } } }, 'aws'],
    ['prompts/get', { name: 'p', arguments: { topic: `key ${AWS_KEY_ID}` } }, 'aws'],
  ])('refuse %s params holding one anywhere (%j)', async (method, params, rule) => {
    const { run } = middleware();
    const next = answer({});
    const ctx = testRequest(method, params);
    const outcome = await run(ctx, next);
    expect(next).not.toHaveBeenCalled();
    expect(errorOf(outcome)?.data).toMatchObject({ reason: 'secret_detected', rules: [rule] });
    expect(JSON.stringify(ctx.params)).toContain(`[REDACTED:${rule}]`);
  });

  it('let ordinary arguments and lists through untouched', async () => {
    const { run } = middleware();
    const params = { name: 'docs__echo', arguments: { text: 'hello', n: 3, nested: { ok: [true, null] } } };
    const ctx = testRequest('tools/call', params);
    const next = answer(text('hello'));
    expect(await run(ctx, next)).toEqual({ ok: true, result: text('hello') });
    expect(ctx.params).toBe(params);
    expect(ctx.state.has(SECRETS_FINDINGS_KEY)).toBe(false);
    const list = testRequest('tools/list', { cursor: GITHUB_TOKEN });
    expect((await run(list, answer({ tools: [] }))).ok).toBe(true);
  });

  it('pass arguments unscanned when only results are scanned', async () => {
    const { run } = middleware({ scan: ['results'] });
    const next = answer(text('fine'));
    const outcome = await run(testRequest('tools/call', { name: 'x', arguments: { t: GITHUB_TOKEN } }), next);
    expect(next).toHaveBeenCalledOnce();
    expect(outcome.ok).toBe(true);
  });

  it('refuse arguments too deep or too large to scan, with a clear reason', async () => {
    const { run } = middleware({}, { maxDepth: 8, maxChars: 10_000 });
    let deep: unknown = 'x';
    for (let i = 0; i < 50; i++) deep = { d: deep };
    const next = answer({});
    const tooDeep = errorOf(await run(testRequest('tools/call', { name: 'x', arguments: { deep } }), next));
    expect(tooDeep?.code).toBe(-32011);
    expect(tooDeep?.data).toEqual({ reason: 'unscannable', where: 'arguments', limit: { maxDepth: 8 } });
    const huge = { name: 'x', arguments: { t: `${'a'.repeat(20_000)} ${GITHUB_TOKEN}` } };
    const tooLarge = errorOf(await run(testRequest('tools/call', huge), next));
    expect(tooLarge?.data).toMatchObject({ reason: 'unscannable', limit: { maxChars: 10_000 } });
    expect(tooLarge?.message).toContain('refused rather than passed on unscanned');
    expect(next).not.toHaveBeenCalled();
  });
});

describe('results', () => {
  it('redact a credential in a tool result, which stays a valid text result', async () => {
    const { run } = middleware();
    const result = {
      content: [
        { type: 'text', text: `here: ${GITHUB_TOKEN}.` },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ],
      structuredContent: { token: GITHUB_TOKEN, other: 'fine' },
      isError: false,
    };
    const ctx = testRequest('tools/call', { name: 'x', arguments: {} });
    const outcome = await run(ctx, answer(result));
    expect(outcome).toEqual({
      ok: true,
      result: {
        content: [
          { type: 'text', text: 'here: [REDACTED:github].' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
        structuredContent: { token: '[REDACTED:github]', other: 'fine' },
        isError: false,
      },
    });
    expect(result.structuredContent.token).toBe(GITHUB_TOKEN); // the upstream's object is not changed
    expect(ctx.state.get(SECRETS_FINDINGS_KEY)).toEqual(['github']);
  });

  it('redact prompt messages, reads (not blobs) and task results', async () => {
    const { run } = middleware();
    const messages = { messages: [{ role: 'user', content: { type: 'text', text: AWS_PAIR } }] };
    const prompt = await run(testRequest('prompts/get', { name: 'p' }), answer(messages));
    expect(JSON.stringify(prompt)).not.toContain(AWS_SECRET);
    expect(JSON.stringify(prompt)).not.toContain(AWS_KEY_ID);
    expect(prompt).toEqual({
      ok: true,
      result: {
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              // The secret's rule reports its range from the assignment: the key's name goes with it.
              text: 'aws_access_key_id = [REDACTED:aws]\n[REDACTED:aws]',
            },
          },
        ],
      },
    });
    const idOnly = await run(
      testRequest('resources/read', { uri: 'file:///cfg' }),
      answer({
        contents: [{ uri: 'file:///cfg', text: `role_arn = x\nkey = ${AWS_KEY_ID}` }],
      }),
    );
    expect(JSON.stringify(idOnly)).not.toContain(AWS_KEY_ID);
    const contents = {
      contents: [
        { uri: 'file:///k.pem', mimeType: 'text/plain', text: `${PRIVATE_KEY}\n` },
        { uri: 'file:///b', blob: 'AAAA' },
      ],
    };
    const read = await run(testRequest('resources/read', { uri: 'file:///k.pem' }), answer(contents));
    expect(read).toEqual({
      ok: true,
      result: {
        contents: [
          { uri: 'file:///k.pem', mimeType: 'text/plain', text: '[REDACTED:privatekey]\n' },
          { uri: 'file:///b', blob: 'AAAA' },
        ],
      },
    });
    const task = await run(testRequest('tasks/result', { taskId: 't' }), answer(text(SLACK_TOKEN)));
    expect(task).toEqual({ ok: true, result: text('[REDACTED:slack]') });
  });

  it('scan a `blob` that is no binary resource contents (found from outside: any `blob` key was skipped)', async () => {
    const { run: scanArgs } = middleware();
    for (const args of [{ blob: GITHUB_TOKEN }, { x: { blob: GITHUB_TOKEN } }]) {
      const outcome = await scanArgs(testRequest('tools/call', { name: 'x', arguments: args }), answer({}));
      expect(errorOf(outcome)?.data).toMatchObject({ reason: 'secret_detected', rules: ['github'] });
    }
    // A client cannot dress a credential up as contents either: what it sends is scanned whole.
    const dressed = { resource: { uri: 'file:///x', blob: GITHUB_TOKEN } };
    const refused = await scanArgs(testRequest('tools/call', { name: 'x', arguments: dressed }), answer({}));
    expect(errorOf(refused)?.data).toMatchObject({ reason: 'secret_detected' });
    const { run } = middleware({ action: 'block' });
    const result = { content: [{ type: 'text', text: 'ok', blob: GITHUB_TOKEN }], structuredContent: {} };
    const blocked = await run(testRequest('tools/call', { name: 'x' }), answer(result));
    expect(errorOf(blocked)?.data).toMatchObject({ reason: 'secret_detected', where: 'result' });
    for (const structuredContent of [
      { blob: GITHUB_TOKEN },
      { c: { uri: 'x', blob: `sc ${GITHUB_TOKEN}` } },
    ]) {
      const structured = await run(
        testRequest('tools/call', { name: 'x' }),
        answer({ content: [], structuredContent }),
      );
      expect(errorOf(structured)?.data).toMatchObject({ reason: 'secret_detected', where: 'result' });
    }
  });

  it('redact what the upstream tells the caller while the call runs: progress and log messages, in order', async () => {
    // Found from outside: an upstream's progress and log messages reached the client with the credential.
    const { run } = middleware();
    const sent: [string, Record<string, unknown>][] = [];
    const ctx = testRequest(
      'tools/call',
      { name: 'x', _meta: { progressToken: 7 } },
      { notifyRelated: async (method, params) => void sent.push([method, params]) },
    );
    const outcome = await run(ctx, async () => {
      void ctx.notifyRelated('notifications/message', { level: 'info', data: `log ${GITHUB_TOKEN}` });
      ctx.onProgress?.({ progress: 1, total: 2, message: `p ${SLACK_TOKEN}` });
      ctx.onProgress?.({ progress: 2, total: 2 });
      return { ok: true, result: text('done') };
    });
    expect(outcome).toEqual({ ok: true, result: text('done') });
    // Delivered before the answer is returned, in the order sent, redacted.
    expect(sent).toEqual([
      ['notifications/message', { level: 'info', data: 'log [REDACTED:github]' }],
      ['notifications/progress', { progress: 1, total: 2, message: 'p [REDACTED:slack]', progressToken: 7 }],
      ['notifications/progress', { progress: 2, total: 2, progressToken: 7 }],
    ]);
    expect(ctx.state.get(SECRETS_FINDINGS_KEY)).toEqual(['github', 'slack']);
  });

  it("scan a call's log message that goes out on another request of its session (found from outside: a list's channel)", async () => {
    // A log message about a call goes to its session's newest request in flight, which may be a list.
    const { run } = middleware();
    const sent: [string, Record<string, unknown>][] = [];
    const ctx = testRequest(
      'resources/list',
      {},
      { notifyRelated: async (method, params) => void sent.push([method, params]) },
    );
    await run(ctx, async () => {
      void ctx.notifyRelated('notifications/message', { level: 'info', data: `slowlog ${GITHUB_TOKEN}` });
      return { ok: true, result: { resources: [] } };
    });
    expect(sent).toEqual([['notifications/message', { level: 'info', data: 'slowlog [REDACTED:github]' }]]);
  });

  it('with block, drop a log message holding a credential and keep only the numbers of a progress update', async () => {
    const { run } = middleware({ action: 'block' });
    const sent: [string, Record<string, unknown>][] = [];
    const ctx = testRequest(
      'tools/call',
      { name: 'x', _meta: { progressToken: 'p' } },
      { notifyRelated: async (method, params) => void sent.push([method, params]) },
    );
    await run(ctx, async () => {
      void ctx.notifyRelated('notifications/message', { level: 'info', data: { token: GITHUB_TOKEN } });
      ctx.onProgress?.({ progress: 1, message: GITHUB_TOKEN });
      void ctx.notifyRelated('notifications/message', { level: 'info', data: 'clean' });
      return { ok: true, result: text('done') };
    });
    expect(sent).toEqual([
      ['notifications/progress', { progress: 1, progressToken: 'p' }],
      ['notifications/message', { level: 'info', data: 'clean' }],
    ]);
  });

  it('with block, refuse an answer holding a credential', async () => {
    const { run } = middleware({ action: 'block' });
    const ctx = testRequest('tools/call', { name: 'x', arguments: {} });
    const error = errorOf(await run(ctx, answer(text(`a ${SLACK_TOKEN} and ${GITHUB_TOKEN}`))));
    expect(error?.code).toBe(-32010);
    expect(error?.data).toEqual({ reason: 'secret_detected', rules: ['github', 'slack'], where: 'result' });
    expect(JSON.stringify(error?.toJSON())).not.toMatch(/ghp_|xoxb/);
  });

  it('redact an error the upstream answered with', async () => {
    const { GatewayError } = await import('@switchyard/core');
    const { run } = middleware();
    const failing = vi.fn(
      async (): Promise<Outcome> => ({
        ok: false,
        error: new GatewayError(-32603, `bad token ${GITHUB_TOKEN}`, {
          upstream: 'docs',
          detail: GITHUB_TOKEN,
        }),
      }),
    );
    const error = errorOf(await run(testRequest('tools/call', { name: 'x' }), failing))!;
    expect(error.code).toBe(-32603);
    expect(error.message).toBe('bad token [REDACTED:github]');
    expect(error.data).toEqual({ upstream: 'docs', detail: '[REDACTED:github]' });
  });

  it('refuse an answer too large or too deep to scan', async () => {
    const { run } = middleware({}, { maxDepth: 8, maxChars: 10_000 });
    const big = text('a'.repeat(20_000));
    const error = errorOf(await run(testRequest('resources/read', { uri: 'x' }), answer(big)));
    expect(error?.data).toMatchObject({ reason: 'unscannable', where: 'result' });
  });

  it('leave clean answers and lists as they are', async () => {
    const { run } = middleware();
    const result = text('nothing to see');
    const outcome = await run(testRequest('tools/call', { name: 'x' }), answer(result));
    expect(outcome.ok && outcome.result).toBe(result);
    const list = { tools: [{ name: 't', description: GITHUB_TOKEN, inputSchema: { type: 'object' } }] };
    const listed = await run(testRequest('tools/list', {}), answer(list));
    expect(listed.ok && listed.result).toBe(list);
  });
});
