import type { McpServer } from '@modelcontextprotocol/server';
import { PNG_1X1_BASE64, TEXT_MIME, WAV_SILENCE_BASE64 } from './media.js';
import { objectInput } from './schema.js';

/**
 * Tools whose results are fixed content of each kind (text, image, audio, embedded resource, a mix, a
 * tool error): the `tools-call-*` scenarios check the shapes. `test_simple_text` is registered first on
 * purpose: suites that pick "the first listed tool" call it without arguments.
 */
export function registerContentTools(mcp: McpServer): void {
  mcp.registerTool(
    'test_simple_text',
    { description: 'Returns one fixed text block', inputSchema: objectInput() },
    () => ({ content: [{ type: 'text', text: 'This is a simple text response for testing.' }] }),
  );

  mcp.registerTool(
    'test_image_content',
    { description: 'Returns one PNG image block', inputSchema: objectInput() },
    () => ({ content: [{ type: 'image', data: PNG_1X1_BASE64, mimeType: 'image/png' }] }),
  );

  mcp.registerTool(
    'test_audio_content',
    { description: 'Returns one WAV audio block', inputSchema: objectInput() },
    () => ({ content: [{ type: 'audio', data: WAV_SILENCE_BASE64, mimeType: 'audio/wav' }] }),
  );

  mcp.registerTool(
    'test_embedded_resource',
    { description: 'Returns one embedded text resource', inputSchema: objectInput() },
    () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: TEXT_MIME,
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  );

  mcp.registerTool(
    'test_multiple_content_types',
    { description: 'Returns text, image and embedded resource blocks', inputSchema: objectInput() },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG_1X1_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  );

  mcp.registerTool(
    'test_error_handling',
    { description: 'Always fails with a tool error (isError)', inputSchema: objectInput() },
    () => ({
      isError: true,
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
    }),
  );
}
