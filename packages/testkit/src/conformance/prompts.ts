import { inputRequired, type McpServer } from '@modelcontextprotocol/server';
import { ASK, acceptedString } from './input-flows.js';
import { PNG_1X1_BASE64, TEXT_MIME } from './media.js';
import { objectInput, stringProperty } from './schema.js';

/** The prompts of the `prompts-*` scenarios, plus one that needs client input first (multi-round). */
export function registerPrompts(mcp: McpServer): void {
  mcp.registerPrompt('test_simple_prompt', { description: 'A simple prompt without arguments' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));

  mcp.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two required arguments',
      argsSchema: objectInput<{ arg1: string; arg2: string }>(
        { arg1: stringProperty('First test argument'), arg2: stringProperty('Second test argument') },
        ['arg1', 'arg2'],
      ),
    },
    ({ arg1, arg2 }) => ({
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
        },
      ],
    }),
  );

  mcp.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt embedding the resource it is given',
      argsSchema: objectInput<{ resourceUri: string }>(
        { resourceUri: stringProperty('URI of the resource to embed') },
        ['resourceUri'],
      ),
    },
    ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri,
              mimeType: TEXT_MIME,
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );

  mcp.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG_1X1_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));

  mcp.registerPrompt(
    'test_input_required_result_prompt',
    { description: 'MRTR: asks for context by elicitation before rendering' },
    (ctx) => {
      const context = acceptedString(ctx, 'user_context', 'context');
      if (context === undefined) return inputRequired({ inputRequests: { user_context: ASK.context() } });
      return {
        messages: [
          { role: 'user', content: { type: 'text', text: `Prompt rendered with context: ${context}` } },
        ],
      };
    },
  );
}
