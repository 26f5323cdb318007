import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createDocsServer,
  createTicketsServer,
  SessionRoster,
  STATUS_URI,
  TicketDesk,
  ticketUri,
} from '../src/index.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

/** Rejects after `ms` with a message naming what did not happen. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function connect(
  server: { connect(t: InMemoryTransport): Promise<void>; close(): Promise<void> },
  answer?: 'yes' | 'no',
) {
  const client = new Client(
    { name: 'test', version: '1.0.0' },
    { capabilities: answer === undefined ? {} : { elicitation: { form: {} } } },
  );
  const asked: string[] = [];
  if (answer !== undefined)
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: answer === 'yes' } };
    });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return { client, asked };
}

function textOf(result: { content?: unknown }): string {
  const blocks = (result.content ?? []) as { type: string; text?: string }[];
  return blocks.map((b) => b.text ?? '').join('\n');
}

function ticketsOn(desk: TicketDesk, roster = new SessionRoster()) {
  const unsubscribe = desk.onChange((change) => {
    if (change.kind === 'list_changed') roster.listChanged();
    else void roster.updated(change.uri);
  });
  closers.push(async () => {
    unsubscribe();
    desk.stop();
  });
  return createTicketsServer(desk, roster, 'legacy', { triageStepMs: 5 });
}

describe('tickets example server', () => {
  it('sends notifications/resources/updated for the queue status on every tick, to subscribers only', async () => {
    const desk = new TicketDesk({ tickMs: 50 });
    const roster = new SessionRoster();
    const { client: subscriber } = await connect(ticketsOn(desk, roster));
    const { client: bystander } = await connect(createTicketsServer(desk, roster, 'legacy'));
    const heard: string[] = [];
    bystander.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
    const updated = new Promise<string>((resolve) =>
      subscriber.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri)),
    );
    await subscriber.subscribeResource({ uri: STATUS_URI });
    const before = await subscriber.readResource({ uri: STATUS_URI }, { cacheMode: 'bypass' });
    desk.start();
    expect(await within(updated, 3000, 'resources/updated')).toBe(STATUS_URI);
    const after = await subscriber.readResource({ uri: STATUS_URI }, { cacheMode: 'bypass' });
    expect(textOf({ content: after.contents })).not.toBe(textOf({ content: before.contents }));
    expect(heard).toEqual([]);
  });

  it('lists readable tickets through the tickets://{id} template and reads one', async () => {
    const { client } = await connect(ticketsOn(new TicketDesk({ tickMs: 0 })));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['tickets://{id}']);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(ticketUri('T-101'));
    const read = await client.readResource({ uri: ticketUri('T-101') });
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    expect(textOf({ content: read.contents })).toContain('Checkout returns 502');
  });

  it('close_ticket asks for confirmation first: yes closes the ticket, no leaves it open', async () => {
    const desk = new TicketDesk({ tickMs: 0 });
    const yes = await connect(ticketsOn(desk), 'yes');
    const closed = await yes.client.callTool({ name: 'close_ticket', arguments: { id: 'T-101' } });
    expect(yes.asked).toEqual([expect.stringContaining('Close T-101')]);
    expect(textOf(closed)).toContain('Closed T-101');
    expect(desk.get('T-101')?.status).toBe('closed');

    const no = await connect(ticketsOn(desk), 'no');
    const kept = await no.client.callTool({ name: 'close_ticket', arguments: { id: 'T-103' } });
    expect(textOf(kept)).toContain('Left T-103 open');
    expect(desk.get('T-103')?.status).toBe('open');
  });

  it('triage_queue reports progress per open ticket', async () => {
    const { client } = await connect(ticketsOn(new TicketDesk({ tickMs: 0 })));
    const progress: string[] = [];
    const result = await client.callTool(
      { name: 'triage_queue', arguments: {} },
      {
        onprogress: (p) => void progress.push(p.message ?? ''),
      },
    );
    expect(progress).toEqual(['Reading T-101', 'Reading T-102', 'Reading T-103']);
    expect(textOf(result)).toMatch(/^Suggested order:\n1\. T-101/);
  });

  it('create_ticket opens a ticket and announces the new resource', async () => {
    const desk = new TicketDesk({ tickMs: 0 });
    const { client } = await connect(ticketsOn(desk));
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler('notifications/resources/list_changed', () => resolve()),
    );
    const result = await client.callTool({
      name: 'create_ticket',
      arguments: { title: 'Disk full on build agent 3', priority: 'high' },
    });
    expect(result.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', uri: 'tickets://T-105' }),
    );
    await within(changed, 3000, 'resources/list_changed');
  });

  it('summarize-ticket embeds the ticket', async () => {
    const { client } = await connect(ticketsOn(new TicketDesk({ tickMs: 0 })));
    const prompt = await client.getPrompt({ name: 'summarize-ticket', arguments: { id: 'T-102' } });
    expect(prompt.messages[0]?.content).toMatchObject({
      type: 'resource',
      resource: { uri: 'tickets://T-102' },
    });
  });
});

describe('docs example server', () => {
  it('serves the handbook as markdown and finds pages by word', async () => {
    const { client } = await connect(createDocsServer());
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.title)).toEqual(expect.arrayContaining(['Onboarding', 'Incident runbook']));
    const found = await client.callTool({ name: 'search_docs', arguments: { query: 'rollback' } });
    expect(found.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', uri: 'file:///handbook/deploys.md' }),
    );
    const prompt = await client.getPrompt({
      name: 'ask-handbook',
      arguments: { question: 'how do I roll back a deploy?' },
    });
    expect(prompt.messages.length).toBeGreaterThan(1);
  });
});
