import { describe, expect, it } from 'vitest';
import { type BannerFacts, bannerColor, bannerSkipped, formatBanner } from '../src/banner.js';

const facts: BannerFacts = {
  version: '0.1.0',
  readyMs: 812,
  listeners: [
    { kind: 'http', url: 'http://127.0.0.1:7480/mcp' },
    { kind: 'ws', url: 'ws://127.0.0.1:7481/mcp' },
  ],
  adminUrl: 'http://127.0.0.1:7482/',
  upstreams: [
    { name: 'docs', state: 'ready', counts: { tools: 1, prompts: 1, resources: 5, templates: 0 } },
    { name: 'tickets', state: 'ready', counts: { tools: 3, prompts: 1, resources: 5, templates: 1 } },
    { name: 'wiki', state: 'connecting' },
    { name: 'gh', state: 'backoff', error: 'spawn gh-mcp ENOENT\nat ChildProcess…' },
  ],
};

describe('formatBanner', () => {
  it('names every listener, the status page, each upstream with its state and counts, and three clients', () => {
    const text = formatBanner(facts);
    expect(text).toBe(
      [
        'Switchyard 0.1.0 ready in 0.8 s',
        'MCP endpoint  http://127.0.0.1:7480/mcp',
        'MCP WebSocket ws://127.0.0.1:7481/mcp',
        'Status page   http://127.0.0.1:7482/',
        'Upstreams     docs     ready       1 tool, 1 prompt, 5 resources, 0 templates',
        '              tickets  ready       3 tools, 1 prompt, 5 resources, 1 template',
        '              wiki     connecting',
        '              gh       backoff     spawn gh-mcp ENOENT',
        'Add it to a client (more in docs/clients.md):',
        '  Claude Desktop claude_desktop_config.json: "switchyard": {"command":"npx","args":["-y","mcp-remote","http://127.0.0.1:7480/mcp"]}',
        '  Cursor         .cursor/mcp.json: {"mcpServers":{"switchyard":{"url":"http://127.0.0.1:7480/mcp"}}}',
        `  VS Code        code --add-mcp '{"name":"switchyard","type":"http","url":"http://127.0.0.1:7480/mcp"}'`,
        '',
      ].join('\n'),
    );
  });

  it('stays short: no more than 8 lines plus one per upstream', () => {
    const lines = formatBanner(facts).trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(8 + facts.upstreams.length);
  });

  it('has no escape codes without colour, and colours the states with it', () => {
    expect(formatBanner(facts)).not.toContain('\x1b[');
    const coloured = formatBanner(facts, { color: true });
    expect(coloured).toContain('\x1b[32mready\x1b[0m');
    expect(coloured).toContain('\x1b[33mconnecting\x1b[0m');
    expect(coloured).toContain('\x1b[31mbackoff\x1b[0m');
    const sgr = new RegExp(`${'\x1b'}\\[\\d+m`, 'g');
    expect(coloured.replace(sgr, '')).toBe(formatBanner(facts));
  });

  it('cuts a long error to keep the line short', () => {
    const error = `connect failed: ${'x'.repeat(200)}`;
    const text = formatBanner({ ...facts, upstreams: [{ name: 'gh', state: 'backoff', error }] });
    const row = text.split('\n').find((l) => l.includes('backoff'))!;
    expect(row.length).toBeLessThan(120);
    expect(row).toMatch(/…$/);
  });

  it('on stdio only: says so and gives no client lines (the client started the gateway)', () => {
    const text = formatBanner({
      ...facts,
      listeners: [{ kind: 'stdio', url: 'stdio' }],
      adminUrl: undefined,
    });
    expect(text).toContain('MCP endpoint  stdio');
    expect(text).not.toContain('Status page');
    expect(text).not.toContain('Add it to a client');
  });

  it('without HTTP but with WebSocket: points to docs/clients.md', () => {
    const text = formatBanner({ ...facts, listeners: [{ kind: 'ws', url: 'ws://127.0.0.1:1/mcp' }] });
    expect(text).toContain('Add it to a client: see docs/clients.md');
    expect(text).not.toContain('code --add-mcp');
  });
});

describe('when the banner shows', () => {
  it('shows at a terminal at the info and debug levels; --banner shows it anyway, --quiet never', () => {
    expect(bannerSkipped({ tty: true })).toBeUndefined();
    expect(bannerSkipped({ tty: true, logLevel: 'info' })).toBeUndefined();
    expect(bannerSkipped({ tty: true, logLevel: 'debug' })).toBeUndefined();
    expect(bannerSkipped({ tty: false })).toBe('stderr is not a terminal');
    expect(bannerSkipped({ tty: true, logLevel: 'warn' })).toBe('log level warn');
    expect(bannerSkipped({ tty: true, logLevel: 'error' })).toBe('log level error');
    expect(bannerSkipped({ tty: false, banner: true })).toBeUndefined();
    expect(bannerSkipped({ tty: false, banner: true, logLevel: 'error' })).toBeUndefined();
    expect(bannerSkipped({ tty: true, quiet: true })).toBe('--quiet');
    expect(bannerSkipped({ tty: true, quiet: true, banner: true })).toBe('--quiet');
  });

  it('is coloured only on a terminal without NO_COLOR', () => {
    expect(bannerColor({ isTTY: true }, {})).toBe(true);
    expect(bannerColor({ isTTY: false }, {})).toBe(false);
    expect(bannerColor({}, {})).toBe(false);
    expect(bannerColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
  });
});
