import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Cleanup } from '@switchyard/testkit';

/** What an {@link interactiveClient} was asked. */
export interface ClientInputs {
  elicitations: Record<string, unknown>[];
  samplings: Record<string, unknown>[];
  roots: number;
}

export const CLIENT_ROOTS = [{ uri: 'file:///work/project', name: 'project' }];

export type ClientEra = 'legacy' | 'modern';

/**
 * An official SDK client that declares elicitation, sampling and roots (or only `capabilities`) and
 * answers them: elicitations accept `{ answer: 'forty-two' }`, sampling answers `sampled: <text>`, roots
 * are {@link CLIENT_ROOTS}. A modern client answers input-required results itself and retries.
 */
export function interactiveClient(
  era: ClientEra,
  capabilities: Record<string, unknown> = { elicitation: { form: {} }, sampling: {}, roots: {} },
): { client: Client; inputs: ClientInputs } {
  const client = new Client(
    { name: `interactive-${era}`, version: '1.0.0' },
    {
      capabilities,
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  const inputs: ClientInputs = { elicitations: [], samplings: [], roots: 0 };
  if (capabilities.elicitation) {
    client.setRequestHandler('elicitation/create', (request) => {
      inputs.elicitations.push(request.params as Record<string, unknown>);
      return { action: 'accept', content: { answer: 'forty-two' } };
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler('sampling/createMessage', (request) => {
      inputs.samplings.push(request.params as Record<string, unknown>);
      const first = request.params.messages[0]?.content;
      const text = first !== undefined && !Array.isArray(first) && first.type === 'text' ? first.text : '?';
      return { role: 'assistant', content: { type: 'text', text: `sampled: ${text}` }, model: 'test-model' };
    });
  }
  if (capabilities.roots) {
    client.setRequestHandler('roots/list', () => {
      inputs.roots += 1;
      return { roots: CLIENT_ROOTS };
    });
  }
  return { client, inputs };
}

/** Connects `client` to the gateway over Streamable HTTP (closed by `cleanup`). */
export async function connectOverHttp(
  cleanup: Cleanup,
  client: Client,
  url: string,
  token?: string,
): Promise<Client> {
  const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  cleanup.add(() => client.close());
  return client;
}

/** The text of a tool result's first content item. */
export function firstText(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { type?: string; text?: string }[];
  return first?.type === 'text' ? String(first.text) : JSON.stringify(result);
}
