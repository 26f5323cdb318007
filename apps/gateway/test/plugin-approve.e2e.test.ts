import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminGet, startAdminGateway } from './support/admin.js';
import { Cleanup, EVERYTHING_CLI, eventually, httpUpstream, tempDir } from './support/harness.js';
import { type ClientEra, connectOverHttp, interactiveClient } from './support/interactive.js';

// @switchyard/plugin-approve through the real CLI: a testkit upstream (`old`, legacy) and the published
// server-everything (`everything`, over stdio: its own tool annotations), official SDK clients of both
// eras, approvers on the admin listener. Every test checks the upstream's own call count: a call that
// was not approved never reaches it.

const shared = new Cleanup();
const cleanup = new Cleanup();
afterEach(() => cleanup.run());
afterAll(() => shared.run());

const TOKENS = { alice: 'alice-token', lead: 'lead-token', root: 'root-token', ops: 'ops-token' };
const TIMEOUT_MS = 4000;
let url = '';
let admin = '';
let auditFile = '';
let calls: () => Record<string, number>;

beforeAll(async () => {
  const old = await httpUpstream(shared, { name: 'old', tools: 3, toolNames: ['purge_cache'] });
  calls = () => old.server.stats.toolCalls;
  auditFile = join(await tempDir(shared), 'audit.jsonl');
  const started = await startAdminGateway(shared, {
    clients: {
      alice: { token: TOKENS.alice },
      lead: { token: TOKENS.lead, groups: ['leads'] },
      root: { token: TOKENS.root, groups: ['admins'] },
      // An admin who is also an approver (issue 26): both roles, one token.
      ops: { token: TOKENS.ops, groups: ['admins', 'approvers'] },
    },
    mcpServers: {
      old: { url: old.url },
      everything: { command: process.execPath, args: [EVERYTHING_CLI] },
    },
    plugins: [
      ['@switchyard/plugin-audit', { file: auditFile, fsync: 'always' }],
      [
        '@switchyard/plugin-approve',
        {
          timeoutMs: TIMEOUT_MS,
          rules: [
            { tools: ['old__tool_1', 'old__tool_2'], by: ['leads'] },
            { tools: ['everything__*'], annotations: { readOnlyHint: false }, by: 'caller' },
            { tools: ['old__tool_0'], when: 'arguments.text == "ask"' },
            { tools: ['old__purge_*'], by: ['approvers'] },
          ],
        },
      ],
    ],
  });
  url = started.gw.url;
  admin = started.admin;
}, 60_000);

async function connected(era: ClientEra, capabilities?: Record<string, unknown>, token = TOKENS.alice) {
  const { client, inputs } = interactiveClient(era, capabilities);
  await connectOverHttp(cleanup, client, url, token);
  return { client, inputs };
}

/** A client whose answer to every elicitation is `action`. */
async function answering(era: ClientEra, action: 'decline' | 'cancel') {
  const client = new Client(
    { name: `answers-${action}`, version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', () => ({ action }));
  return connectOverHttp(cleanup, client, url, TOKENS.alice);
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }, { timeout: 20_000 });

const refusal = (reason: string, code: number) => ({ code, data: { reason } });
const DENIED = refusal('approval_denied', -32013);
const TIMED_OUT = refusal('approval_timeout', -32014);
const REQUIRED = refusal('approval_required', -32015);

async function post(path: string, body: unknown, token: string) {
  const res = await fetch(new URL(path, admin), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The pending approvals `token` sees, once there are `count` of them. */
async function pendingFor(token: string, count = 1) {
  let pending: Record<string, unknown>[] = [];
  await eventually(async () => {
    const { json } = await adminGet(admin, '/admin/approvals', token);
    pending = (json.pending ?? []) as Record<string, unknown>[];
    return pending.length === count;
  }, `${count} pending approval(s)`);
  return pending;
}

function auditRecords(): Record<string, unknown>[] {
  return readFileSync(auditFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe.each(['legacy', 'modern'] as const)('by the caller, a %s client', (era) => {
  it('is asked through elicitation (tool, server and arguments shown); accept runs the call once', async () => {
    const { client, inputs } = await connected(era);
    const before = calls().tool_0 ?? 0;
    const result = await call(client, 'old__tool_0', { text: 'ask' });
    expect(result.structuredContent).toMatchObject({ tool: 'tool_0', arguments: { text: 'ask' } });
    expect(calls().tool_0).toBe(before + 1);
    expect(inputs.elicitations).toHaveLength(1);
    const message = String(inputs.elicitations[0]?.message);
    expect(message).toContain('old__tool_0');
    expect(message).toContain('"text": "ask"');
    // The rule's `when` does not match other arguments: no question, straight through.
    await call(client, 'old__tool_0', { text: 'plain' });
    expect(inputs.elicitations).toHaveLength(1);
    expect(calls().tool_0).toBe(before + 2);
  });

  it.each(['decline', 'cancel'] as const)(
    'who answers %s is refused with approval_denied',
    async (action) => {
      const client = await answering(era, action);
      const before = calls().tool_0 ?? 0;
      await expect(call(client, 'old__tool_0', { text: 'ask' })).rejects.toMatchObject(DENIED);
      expect(calls().tool_0 ?? 0).toBe(before);
    },
  );

  it('without elicitation is refused with approval_required, never asked', async () => {
    const { client, inputs } = await connected(era, { sampling: {} });
    const before = calls().tool_0 ?? 0;
    await expect(call(client, 'old__tool_0', { text: 'ask' })).rejects.toMatchObject(REQUIRED);
    expect(inputs.samplings).toEqual([]);
    expect(calls().tool_0 ?? 0).toBe(before);
  });

  it("holds a published server's tools by their own annotations (readOnlyHint false), not read-only ones", async () => {
    const { client, inputs } = await connected(era);
    await call(client, 'everything__get-sum', { a: 1, b: 2 });
    expect(inputs.elicitations).toHaveLength(0);
    const toggled = await call(client, 'everything__toggle-simulated-logging');
    expect(toggled.isError ?? false).toBe(false);
    expect(inputs.elicitations).toHaveLength(1);
    expect(String(inputs.elicitations[0]?.message)).toContain('everything__toggle-simulated-logging');
    await call(client, 'everything__toggle-simulated-logging');
    expect(inputs.elicitations).toHaveLength(2);
  });
});

describe('crafted arguments', () => {
  it('too deeply nested to be shown and digested: refused before anyone is asked or the upstream called', async () => {
    const { client, inputs } = await connected('legacy');
    let nested: unknown = 'x';
    for (let i = 0; i < 80; i++) nested = { deeper: nested };
    const before = calls().tool_0 ?? 0;
    await expect(call(client, 'old__tool_0', { text: 'ask', nested })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('too large to be approved'),
    });
    expect(inputs.elicitations).toEqual([]);
    expect(calls().tool_0 ?? 0).toBe(before);
  });
});

describe('by the caller, bound and single use (2026-07-28, answered by hand)', () => {
  const anyResult = { '~standard': { version: 1, vendor: 't', validate: (value: unknown) => ({ value }) } };
  const raw = (client: Client, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    client.request(
      { method: 'tools/call', params: { name: 'old__tool_0', arguments: args, ...extra } } as never,
      anyResult as never,
      { allowInputRequired: true, timeout: 15_000 } as never,
    ) as Promise<Record<string, unknown>>;

  it('an answer approves the call it was asked for, once; not other arguments, not a replay', async () => {
    const { client } = await connected('modern');
    const before = calls().tool_0 ?? 0;
    const asked = await raw(client, { text: 'ask' });
    expect(asked).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'switchyard.approval': { method: 'elicitation/create' } },
    });
    const answer = {
      inputResponses: { 'switchyard.approval': { action: 'accept', content: {} } },
      requestState: asked.requestState,
    };
    const invalid = refusal('invalid_request_state', -32602);
    await expect(raw(client, { text: 'ask', more: 1 }, answer)).rejects.toMatchObject(invalid);
    expect(calls().tool_0 ?? 0).toBe(before);
    // The refused attempt did not spend it: the call it was asked for still goes through, once.
    expect(await raw(client, { text: 'ask' }, answer)).toMatchObject({
      structuredContent: { tool: 'tool_0' },
    });
    expect(calls().tool_0).toBe(before + 1);
    await expect(raw(client, { text: 'ask' }, answer)).rejects.toMatchObject(invalid);
    expect(calls().tool_0).toBe(before + 1);
  });
});

describe('by an approver group on the admin listener', () => {
  it('lists the held call to the group, not to the caller; an approval runs it once and is spent', async () => {
    const { client } = await connected('legacy');
    const before = calls().tool_1 ?? 0;
    const held = call(client, 'old__tool_1', { text: 'deploy' });
    const [pending] = await pendingFor(TOKENS.lead);
    expect(pending).toMatchObject({
      identity: 'alice',
      tool: 'old__tool_1',
      server: 'old',
      arguments: { text: 'deploy' },
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      expiresAt: expect.any(String),
    });
    expect((await adminGet(admin, '/admin/approvals', TOKENS.alice)).status).toBe(403);
    expect(
      (await post(`/admin/approvals/${pending?.id}`, { decision: 'approve' }, TOKENS.alice)).status,
    ).toBe(403);
    expect((await post('/admin/approvals/not-an-id', { decision: 'approve' }, TOKENS.lead)).status).toBe(404);
    expect((await post(`/admin/approvals/${pending?.id}`, { decision: 'maybe' }, TOKENS.lead)).status).toBe(
      400,
    );
    expect(calls().tool_1 ?? 0).toBe(before);
    // An admin sees it too, in the status.
    const status = await adminGet(admin, '/admin/status', TOKENS.root);
    expect((status.json.approvals as { pending: unknown[] }).pending).toHaveLength(1);

    expect(await post(`/admin/approvals/${pending?.id}`, { decision: 'approve' }, TOKENS.lead)).toMatchObject(
      {
        status: 200,
        json: { id: pending?.id, decision: 'approve' },
      },
    );
    expect((await held).structuredContent).toMatchObject({ tool: 'tool_1', arguments: { text: 'deploy' } });
    expect(calls().tool_1).toBe(before + 1);
    // Spent: deciding again says so (409), and runs nothing.
    expect(await post(`/admin/approvals/${pending?.id}`, { decision: 'approve' }, TOKENS.lead)).toMatchObject(
      {
        status: 409,
        json: {
          id: pending?.id,
          outcome: 'approved',
          by: 'lead',
          error: expect.stringContaining('already approved'),
        },
      },
    );
    expect(calls().tool_1).toBe(before + 1);
    await eventually(
      () =>
        auditRecords().some(
          (r) => r.method === 'tools/call' && (r.approval as { approver?: string })?.approver === 'lead',
        ),
      'the audit record of the approved call',
    );
    const record = auditRecords().find((r) => (r.approval as { approver?: string })?.approver === 'lead');
    expect(record).toMatchObject({ identity: 'alice', approval: { by: 'group', decision: 'approved' } });
  });

  it('a denial refuses the call with approval_denied (modern client)', async () => {
    const { client } = await connected('modern');
    const before = calls().tool_2 ?? 0;
    const held = call(client, 'old__tool_2', { text: 'drop' });
    const [pending] = await pendingFor(TOKENS.root);
    expect((await post(`/admin/approvals/${pending?.id}`, { decision: 'deny' }, TOKENS.root)).status).toBe(
      200,
    );
    await expect(held).rejects.toMatchObject(DENIED);
    expect(calls().tool_2 ?? 0).toBe(before);
  });

  it('no decision within timeoutMs refuses the call with approval_timeout and forgets it', async () => {
    const { client } = await connected('legacy');
    const before = calls().tool_2 ?? 0;
    const held = call(client, 'old__tool_2', { text: 'later' });
    const [pending] = await pendingFor(TOKENS.lead);
    await expect(held).rejects.toMatchObject(TIMED_OUT);
    expect(calls().tool_2 ?? 0).toBe(before);
    expect(await post(`/admin/approvals/${pending?.id}`, { decision: 'approve' }, TOKENS.lead)).toMatchObject(
      {
        status: 409,
        json: { outcome: 'timed_out', error: expect.stringContaining('approval_timeout') },
      },
    );
    expect(await pendingFor(TOKENS.lead, 0)).toEqual([]);
    expect(calls().tool_2 ?? 0).toBe(before);
  });

  it('a call its caller stopped waiting for leaves the list; an approver deciding it late hears why (409)', async () => {
    const { client } = await connected('legacy');
    const before = calls().tool_2 ?? 0;
    const gaveUp = new AbortController();
    const held = client.callTool(
      { name: 'old__tool_2', arguments: { text: 'bye' } },
      { signal: gaveUp.signal },
    );
    const [pending] = await pendingFor(TOKENS.lead);
    gaveUp.abort();
    await expect(held).rejects.toThrow();
    expect(await pendingFor(TOKENS.lead, 0)).toEqual([]);
    // Audited as the caller's cancellation with how the hold ended, not as an internal error.
    const withdrawn = () => auditRecords().find((r) => r.tool === 'old__tool_2' && r.reason === 'cancelled');
    await eventually(() => withdrawn() !== undefined, 'the withdrawn call audited');
    expect(withdrawn()).toMatchObject({ outcome: 'error', approval: { by: 'group', decision: 'withdrawn' } });
    expect(await post(`/admin/approvals/${pending?.id}`, { decision: 'approve' }, TOKENS.lead)).toMatchObject(
      {
        status: 409,
        json: { outcome: 'withdrawn', error: expect.stringContaining('the caller stopped waiting') },
      },
    );
    // To someone who could never have decided it, it does not exist.
    expect(
      (await post(`/admin/approvals/${pending?.id}`, { decision: 'approve' }, TOKENS.alice)).status,
    ).toBe(403);
    expect(calls().tool_2 ?? 0).toBe(before);
  });

  it.each(['legacy', 'modern'] as const)(
    "an admin who is also in the rule's group lists and decides a %s client's call through the HTTP API",
    async (era) => {
      const { client } = await connected(era);
      const before = calls().purge_cache ?? 0;
      const held = call(client, 'old__purge_cache', { text: 'all' });
      const [pending] = await pendingFor(TOKENS.ops);
      expect(pending).toMatchObject({ identity: 'alice', tool: 'old__purge_cache', groups: ['approvers'] });
      expect(calls().purge_cache ?? 0).toBe(before);
      expect(
        await post(`/admin/approvals/${pending?.id}`, { decision: 'approve' }, TOKENS.ops),
      ).toMatchObject({
        status: 200,
        json: { id: pending?.id, decision: 'approve' },
      });
      expect((await held).structuredContent).toMatchObject({
        tool: 'purge_cache',
        arguments: { text: 'all' },
      });
      expect(calls().purge_cache).toBe(before + 1);
    },
  );
});
