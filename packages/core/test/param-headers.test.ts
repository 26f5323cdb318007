import { describe, expect, it } from 'vitest';
import { scanParamHeaders } from '../src/param-headers/declarations.js';
import {
  checkParamHeaders,
  decodeParamValue,
  encodeParamValue,
  paramHeaders,
  paramText,
} from '../src/param-headers/values.js';
import { messageHeaders } from '../src/transports/upstream/http-wire.js';
import { ToolHeaders } from '../src/upstream/tool-headers.js';

const object = (properties: Record<string, unknown>) => ({ type: 'object', properties });
const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

describe('x-mcp-header declarations (SEP-2243)', () => {
  it('finds declarations through properties at any depth', () => {
    const scan = scanParamHeaders(
      object({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        query: { type: 'string' },
        options: object({ priority: { type: 'integer', 'x-mcp-header': 'Priority' } }),
        verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
      }),
    );
    expect(scan).toEqual({
      valid: true,
      declarations: [
        { path: ['region'], headerName: 'Region', type: 'string' },
        { path: ['options', 'priority'], headerName: 'Priority', type: 'integer' },
        { path: ['verbose'], headerName: 'Verbose', type: 'boolean' },
      ],
    });
    expect(scanParamHeaders(object({ a: { type: 'string' } }))).toEqual({ valid: true, declarations: [] });
    expect(scanParamHeaders(undefined)).toEqual({ valid: true, declarations: [] });
  });

  // The invalid tools of the conformance scenario http-invalid-tool-headers, and a few more.
  it.each([
    ['empty', { value: { type: 'string', 'x-mcp-header': '' } }],
    ['object', { value: { type: 'object', 'x-mcp-header': 'Obj' } }],
    ['array', { value: { type: 'array', 'x-mcp-header': 'Arr' } }],
    ['null', { value: { type: 'null', 'x-mcp-header': 'Nul' } }],
    ['untyped', { value: { 'x-mcp-header': 'Any' } }],
    [
      'same case twice',
      { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'Region' } },
    ],
    [
      'case-insensitive twice',
      { a: { type: 'string', 'x-mcp-header': 'MyField' }, b: { type: 'string', 'x-mcp-header': 'myfield' } },
    ],
    ['a space', { value: { type: 'string', 'x-mcp-header': 'My Region' } }],
    ['a colon', { value: { type: 'string', 'x-mcp-header': 'Region:Primary' } }],
    ['non-ASCII', { value: { type: 'string', 'x-mcp-header': 'Région' } }],
    ['a control character', { value: { type: 'string', 'x-mcp-header': 'Region\t1' } }],
    ['under items', { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }],
    ['under oneOf', { pick: { oneOf: [{ type: 'string', 'x-mcp-header': 'Pick' }] } }],
    ['under $defs', { ref: { $defs: { x: { type: 'string', 'x-mcp-header': 'Def' } } } }],
  ])('refuses a declaration with %s', (_, properties) => {
    const scan = scanParamHeaders(object(properties));
    expect(scan.valid).toBe(false);
    expect(scan.declarations).toBeUndefined();
  });

  it('refuses one on the schema root', () => {
    expect(scanParamHeaders({ type: 'object', 'x-mcp-header': 'Root' }).valid).toBe(false);
  });

  it('calls a number declaration invalid but keeps the declarations (servers still check them)', () => {
    const scan = scanParamHeaders(object({ score: { type: 'number', 'x-mcp-header': 'Score' } }));
    expect(scan).toMatchObject({
      valid: false,
      declarations: [{ path: ['score'], headerName: 'Score', type: 'number' }],
    });
  });
});

describe('Mcp-Param header values', () => {
  // The values of the conformance scenario http-custom-headers (what a client must send).
  it.each([
    ['us-west1', 'us-west1'],
    ['us west 1', 'us west 1'],
    ['SELECT * FROM users', 'SELECT * FROM users'],
    ['', b64('')],
    ['Hello, 世界', b64('Hello, 世界')],
    [' padded ', b64(' padded ')],
    [' us-west1', b64(' us-west1')],
    ['us-west1 ', b64('us-west1 ')],
    ['line1\nline2', b64('line1\nline2')],
    ['line1\r\nline2', b64('line1\r\nline2')],
    ['\tindented', b64('\tindented')],
    ['=?base64?SGk=?=', b64('=?base64?SGk=?=')],
  ])('writes %j as %j', (value, header) => {
    expect(encodeParamValue(value)).toBe(header);
    expect(decodeParamValue(header)).toBe(value);
  });

  it('reads Base64 only when it is canonical UTF-8, and anything without the full wrapper literally', () => {
    expect(decodeParamValue('=?base64?SGVsbG8=?=')).toBe('Hello');
    expect(decodeParamValue('=?base64?SGVsbG8?=')).toBeUndefined(); // padding missing
    expect(decodeParamValue('=?base64?SGVs!!!bG8=?=')).toBeUndefined(); // not the alphabet
    expect(decodeParamValue('=?base64?/w==?=')).toBeUndefined(); // not UTF-8
    expect(decodeParamValue('SGVsbG8=')).toBe('SGVsbG8=');
    expect(decodeParamValue('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=');
  });

  it('turns primitives into text and refuses the rest', () => {
    expect([42, 3.5, -1, true, false, 'x'].map(paramText)).toEqual(['42', '3.5', '-1', 'true', 'false', 'x']);
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, null, undefined, {}, []])
      expect(paramText(value)).toBeUndefined();
  });
});

const declarations = [
  { path: ['region'], headerName: 'Region', type: 'string' },
  { path: ['priority'], headerName: 'Priority', type: 'integer' },
  { path: ['verbose'], headerName: 'Verbose', type: 'boolean' },
  { path: ['options', 'zone'], headerName: 'Zone', type: 'string' },
];

describe('a call and its Mcp-Param headers', () => {
  it('mirrors the declared arguments a call carries, and only those', () => {
    const args = { region: 'Zürich', priority: 42, verbose: null, query: 'SELECT 1', options: { zone: 'b' } };
    expect(paramHeaders(declarations, args)).toEqual({
      'Mcp-Param-Region': b64('Zürich'),
      'Mcp-Param-Priority': '42',
      'Mcp-Param-Zone': 'b',
    });
    expect(paramHeaders(declarations, undefined)).toEqual({});
  });

  it('reads only the arguments a call carries, not what Object.prototype has under their names', () => {
    const inherited = [
      { path: ['constructor', 'name'], headerName: 'Kind', type: 'string' },
      { path: ['toString'], headerName: 'Text', type: 'string' },
    ];
    for (const args of [{}, { constructor: {} }, []]) {
      expect(paramHeaders(inherited, args), JSON.stringify(args)).toEqual({});
      expect(
        checkParamHeaders(inherited, args, () => undefined),
        JSON.stringify(args),
      ).toBeUndefined();
    }
    expect(paramHeaders(inherited, { constructor: { name: 'own' } })).toEqual({ 'Mcp-Param-Kind': 'own' });
  });

  const check = (args: unknown, headers: Record<string, string>) =>
    checkParamHeaders(declarations, args, (name) => headers[name.toLowerCase()]);

  it('accepts headers that say what the body says, plain or in Base64', () => {
    const args = { region: 'Zürich', priority: 42, verbose: false };
    expect(
      check(args, {
        'mcp-param-region': b64('Zürich'),
        'mcp-param-priority': '42.0',
        'mcp-param-verbose': 'false',
      }),
    ).toBeUndefined();
    expect(check({ region: 'us' }, { 'mcp-param-region': b64('us') })).toBeUndefined();
    // An argument the body does not carry (or carries as null) needs no header; one sent anyway is ignored.
    expect(check({ verbose: null }, { 'mcp-param-region': 'anything' })).toBeUndefined();
  });

  it('refuses a missing, malformed or disagreeing header, naming it', () => {
    expect(check({ region: 'us' }, {})).toMatchObject({
      header: 'Mcp-Param-Region',
      body: expect.stringMatching(/absent/),
    });
    expect(check({ region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' })).toMatchObject({
      header: 'Mcp-Param-Region',
      body: expect.stringMatching(/invalid Base64/),
    });
    expect(check({ region: 'us' }, { 'mcp-param-region': 'eu' })).toMatchObject({
      header: 'Mcp-Param-Region',
    });
    expect(check({ priority: 42 }, { 'mcp-param-priority': '43' })).toMatchObject({
      header: 'Mcp-Param-Priority',
    });
    expect(check({ verbose: true }, { 'mcp-param-verbose': 'TRUE' })).toMatchObject({
      header: 'Mcp-Param-Verbose',
    });
    expect(check({ options: { zone: 'b' } }, {})).toMatchObject({ header: 'Mcp-Param-Zone' });
  });
});

describe("an upstream's tool headers", () => {
  const page = (tools: Record<string, unknown>[]) => ({ tools });
  const route = {
    name: 'route',
    inputSchema: object({ region: { type: 'string', 'x-mcp-header': 'Region' } }),
  };

  it('learns declarations from tools/list pages and writes them on the calls of a Streamable HTTP upstream', () => {
    const tools = new ToolHeaders(true);
    tools.learn(page([route, { name: 'plain', inputSchema: object({}) }, { name: 42 }]));
    expect(tools.of('route')).toEqual([{ path: ['region'], headerName: 'Region', type: 'string' }]);
    expect(tools.of('plain')).toBeUndefined();
    expect(tools.forCall({ name: 'route', arguments: { region: ' eu ' } })).toEqual({
      'Mcp-Param-Region': b64(' eu '),
    });
    expect(tools.forCall({ name: 'route', arguments: {} })).toBeUndefined();
    expect(tools.forCall({ name: 'plain', arguments: { region: 'eu' } })).toBeUndefined();
    // Listed again without the declaration (or with an invalid one), the tool has none any more.
    tools.learn(
      page([{ ...route, inputSchema: object({ region: { type: 'object', 'x-mcp-header': 'Region' } }) }]),
    );
    expect(tools.of('route')).toBeUndefined();
  });

  it('knows the declarations of any upstream but writes no headers where the transport has none', () => {
    const tools = new ToolHeaders(false);
    tools.learn(page([route]));
    expect(tools.of('route')).toHaveLength(1);
    expect(tools.forCall({ name: 'route', arguments: { region: 'eu' } })).toBeUndefined();
  });

  it("puts a sender's per-message headers on the POST, never over the transport's own", () => {
    const modern = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'route' };
    expect(
      messageHeaders(modern, { 'Mcp-Param-Region': 'eu', 'Mcp-Method': 'x', Authorization: 'Bearer stolen' }),
    ).toEqual({ ...modern, 'mcp-param-region': 'eu' });
    expect(messageHeaders(modern, undefined)).toBe(modern);
    expect(messageHeaders(undefined, { 'Mcp-Param-Region': 'eu' })).toEqual({ 'mcp-param-region': 'eu' });
  });
});
