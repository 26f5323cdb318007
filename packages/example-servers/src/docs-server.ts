import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { HANDBOOK, pageUri, searchHandbook } from './handbook.js';

export const EXAMPLE_VERSION = '0.1.0';

/**
 * The `docs` example server: the team handbook as markdown resources, a `search_docs` tool and an
 * `ask-handbook` prompt that embeds the pages it found.
 */
export function createDocsServer(): McpServer {
  const mcp = new McpServer(
    { name: 'docs', title: 'Team handbook', version: EXAMPLE_VERSION },
    { instructions: 'The platform team handbook: onboarding, incident runbook, deploys, on-call.' },
  );
  for (const page of HANDBOOK) {
    mcp.registerResource(
      page.slug,
      pageUri(page),
      { title: page.title, description: page.description, mimeType: 'text/markdown' },
      (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: page.markdown }] }),
    );
  }

  mcp.registerTool(
    'search_docs',
    {
      title: 'Search the handbook',
      description: 'Finds handbook pages containing every word of the query; returns links to them',
      inputSchema: z.object({ query: z.string().min(1).describe('Words to look for, e.g. "rollback"') }),
      annotations: { readOnlyHint: true },
    },
    ({ query }) => {
      const pages = searchHandbook(query);
      if (pages.length === 0)
        return { content: [{ type: 'text', text: `No handbook page mentions "${query}".` }] };
      return {
        content: [
          { type: 'text', text: `${pages.length} page(s) mention "${query}":` },
          ...pages.map((page) => ({
            type: 'resource_link' as const,
            uri: pageUri(page),
            name: page.slug,
            title: page.title,
            description: page.description,
            mimeType: 'text/markdown',
          })),
        ],
      };
    },
  );

  mcp.registerPrompt(
    'ask-handbook',
    {
      title: 'Ask the handbook',
      description: 'Answer a question from the handbook pages that mention it',
      argsSchema: z.object({ question: z.string().describe('e.g. "how do I roll back a deploy?"') }),
    },
    ({ question }) => {
      const words = question.toLowerCase().match(/[a-z]{5,}/g) ?? [];
      const pages = HANDBOOK.filter((page) => words.some((w) => searchHandbook(w).includes(page)));
      return {
        description: `"${question}", with ${pages.length} handbook page(s)`,
        messages: [
          ...pages.map((page) => ({
            role: 'user' as const,
            content: {
              type: 'resource' as const,
              resource: { uri: pageUri(page), mimeType: 'text/markdown', text: page.markdown },
            },
          })),
          {
            role: 'user' as const,
            content: {
              type: 'text' as const,
              text: `Using only the handbook pages above, answer: ${question}`,
            },
          },
        ],
      };
    },
  );
  return mcp;
}
