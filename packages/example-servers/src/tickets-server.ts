import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CallToolResult,
  completable,
  inputRequired,
  inputResponse,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { EXAMPLE_VERSION } from './docs-server.js';
import type { SessionRoster } from './roster.js';
import { STATUS_URI, type Ticket, type TicketDesk, ticketUri } from './ticket-desk.js';

/** How long `triage_queue` spends on each open ticket (it sends one progress notification per ticket). */
export const TRIAGE_STEP_MS = 400;

function ticketMarkdown(ticket: Ticket): string {
  const lines = [
    `# ${ticket.id} · ${ticket.title}`,
    '',
    `Status: ${ticket.status} · Priority: ${ticket.priority} · Updated: ${ticket.updatedAt}`,
    '',
    ticket.body,
  ];
  if (ticket.resolution) lines.push('', `Resolution: ${ticket.resolution}`);
  return `${lines.join('\n')}\n`;
}

function text(value: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: value }], ...(isError ? { isError: true } : {}) };
}

function link(ticket: Ticket) {
  return {
    type: 'resource_link' as const,
    uri: ticketUri(ticket.id),
    name: ticket.id,
    title: ticket.title,
    mimeType: 'text/markdown',
  };
}

const CONFIRM_SCHEMA = {
  type: 'object' as const,
  properties: { confirm: { type: 'boolean' as const, title: 'Close it?', default: true } },
  required: ['confirm'],
};

/**
 * One session of the `tickets` example server over the shared {@link TicketDesk}: tickets as resources
 * (template `tickets://{id}`), the live queue status, tools to create, close (after an elicitation) and
 * triage (with progress), and the `summarize-ticket` prompt.
 */
export function createTicketsServer(
  desk: TicketDesk,
  roster: SessionRoster,
  era: 'legacy' | 'modern' = 'legacy',
  options: { triageStepMs?: number } = {},
): McpServer {
  const mcp = new McpServer(
    { name: 'tickets', title: 'Ticket desk', version: EXAMPLE_VERSION },
    {
      capabilities: { resources: { subscribe: true, listChanged: true } },
      instructions: 'The support ticket desk: read tickets, create and close them, triage the queue.',
    },
  );
  roster.add(mcp, era);
  const stepMs = options.triageStepMs ?? TRIAGE_STEP_MS;
  const ids = (prefix: string) =>
    desk
      .list()
      .map((t) => t.id)
      .filter((id) => id.startsWith(prefix.toUpperCase()));

  mcp.registerResource(
    'queue-status',
    STATUS_URI,
    {
      title: 'Queue status',
      description: `Counts by status, refreshed every ${desk.tickMs / 1000} s: subscribe to see updates`,
      mimeType: 'text/markdown',
    },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: desk.statusText() }] }),
  );

  mcp.registerResource(
    'ticket',
    new ResourceTemplate('tickets://{id}', {
      list: () => ({
        resources: desk.list().map((t) => ({
          uri: ticketUri(t.id),
          name: t.id,
          title: `${t.id} ${t.title}`,
          description: `${t.status}, ${t.priority} priority`,
          mimeType: 'text/markdown',
        })),
      }),
      complete: { id: (value) => ids(value) },
    }),
    { title: 'Ticket', description: 'A ticket by id, e.g. tickets://T-101', mimeType: 'text/markdown' },
    (uri, { id }) => {
      const ticket = desk.get(String(id));
      if (ticket === undefined)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No ticket ${String(id)}: see tickets/list`);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: ticketMarkdown(ticket) }] };
    },
  );

  mcp.registerTool(
    'create_ticket',
    {
      title: 'Create a ticket',
      description: 'Opens a ticket; returns a link to it',
      inputSchema: z.object({
        title: z.string().min(1).describe('What is wrong, e.g. "Disk full on build agent 3"'),
        body: z.string().default('').describe('What you saw, what you expected, how to see it again'),
        priority: z.enum(['low', 'normal', 'high']).default('normal'),
      }),
    },
    ({ title, body, priority }) => {
      const ticket = desk.create({ title, body, priority });
      return { content: [{ type: 'text', text: `Opened ${ticket.id}: ${ticket.title}` }, link(ticket)] };
    },
  );

  mcp.registerTool(
    'close_ticket',
    {
      title: 'Close a ticket',
      description: 'Closes a ticket after asking you to confirm (elicitation)',
      inputSchema: z.object({
        id: z.string().describe('e.g. T-101'),
        resolution: z.string().default('Resolved.').describe('One line: what fixed it'),
      }),
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    ({ id, resolution }, ctx) => {
      const ticket = desk.get(id);
      if (ticket === undefined) return text(`No ticket ${id}.`, true);
      if (ticket.status === 'closed') return text(`${id} is already closed.`);
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
      if (answer.kind !== 'elicit')
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              mode: 'form',
              message: `Close ${id} "${ticket.title}" with resolution "${resolution}"?`,
              requestedSchema: CONFIRM_SCHEMA,
            }),
          },
        });
      if (answer.action !== 'accept' || answer.content?.confirm !== true)
        return text(`Left ${id} open (you answered ${answer.action === 'accept' ? 'no' : answer.action}).`);
      const closed = desk.close(id, resolution);
      return closed
        ? { content: [{ type: 'text', text: `Closed ${id}.` }, link(closed)] }
        : text(`No ticket ${id}.`, true);
    },
  );

  mcp.registerTool(
    'triage_queue',
    {
      title: 'Triage the queue',
      description:
        'Goes through every open ticket (a progress notification per ticket) and proposes an order',
      annotations: { readOnlyHint: true },
    },
    async (ctx) => {
      const open = desk.list().filter((t) => t.status !== 'closed');
      const progressToken = ctx.mcpReq._meta?.progressToken;
      const rank = { high: 0, normal: 1, low: 2 };
      for (const [index, ticket] of open.entries()) {
        if (progressToken !== undefined)
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress: index, total: open.length, message: `Reading ${ticket.id}` },
          });
        await sleep(stepMs, undefined, { signal: ctx.mcpReq.signal });
      }
      const order = [...open].sort((a, b) => rank[a.priority] - rank[b.priority]);
      return text(
        order.length === 0
          ? 'Nothing to triage.'
          : ['Suggested order:', ...order.map((t, i) => `${i + 1}. ${t.id} (${t.priority}) ${t.title}`)].join(
              '\n',
            ),
      );
    },
  );

  mcp.registerPrompt(
    'summarize-ticket',
    {
      title: 'Summarize a ticket',
      description: 'A short summary of a ticket for a standup or a handover',
      argsSchema: z.object({
        id: completable(z.string().describe('Ticket id, e.g. T-101'), (value) => ids(value)),
      }),
    },
    ({ id }) => {
      const ticket = desk.get(id);
      if (ticket === undefined)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `No ticket ${id}: pick one from tickets/list`,
        );
      return {
        description: `Summarize ${ticket.id}`,
        messages: [
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: {
                uri: ticketUri(ticket.id),
                mimeType: 'text/markdown',
                text: ticketMarkdown(ticket),
              },
            },
          },
          {
            role: 'user',
            content: {
              type: 'text',
              text: 'Summarize this ticket in three bullet points: the problem, where it stands, the next step.',
            },
          },
        ],
      };
    },
  );
  return mcp;
}
