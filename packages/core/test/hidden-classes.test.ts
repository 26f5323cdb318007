import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// On Node 20's V8 an object spread that then gains keys (`{ ...a, key }`) gets a new hidden class every
// time, and `delete` makes a dictionary: microseconds and old-space garbage on every request
// (docs/architecture.md, speed). The wire helpers every 2026-07-28 request goes through must give
// same-shaped inputs the same hidden class. V8's own predicates say so, in a child started with
// --allow-natives-syntax on the built module.

const wire = fileURLToPath(new URL('../dist/downstream/modern-wire.js', import.meta.url));
const context = fileURLToPath(new URL('../dist/downstream/request-context.js', import.meta.url));
const cancellation = fileURLToPath(new URL('../dist/cancellation.js', import.meta.url));

const PROBE = `
const { encodeModernResult, liftModernRequest } = await import(${JSON.stringify(wire)});
const { requestContext } = await import(${JSON.stringify(context)});
const { Cancellation } = await import(${JSON.stringify(cancellation)});
const session = { id: 's', transport: 'http', identity: { id: 'a', groups: [], anonymous: true }, notify: async () => {} };
const ctx = (i) => requestContext({ method: 'resources/read', params: { uri: 'a://' + i }, session, signal: new Cancellation(), notifyRelated: async () => {} });
const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const request = (i) => JSON.parse(JSON.stringify({ uri: 'a://' + i, _meta: envelope }));
const read = (i) => JSON.parse(JSON.stringify({ contents: [{ uri: 'a://' + i, text: 'x' }] }));
const call = (i) => JSON.parse(JSON.stringify({ content: [{ type: 'text', text: String(i) }], _meta: { k: i } }));
for (let i = 0; i < 2000; i++) {
  liftModernRequest(request(i));
  encodeModernResult('resources/read', read(i));
  encodeModernResult('tools/call', call(i));
  ctx(i);
}
const a = liftModernRequest(request(1)).params, b = liftModernRequest(request(2)).params;
console.log(JSON.stringify({
  liftSameClass: %HaveSameMap(a, b),
  liftFast: %HasFastProperties(a),
  readSameClass: %HaveSameMap(encodeModernResult('resources/read', read(1)), encodeModernResult('resources/read', read(2))),
  callSameClass: %HaveSameMap(encodeModernResult('tools/call', call(1)), encodeModernResult('tools/call', call(2))),
  readFast: %HasFastProperties(encodeModernResult('resources/read', read(3))),
  contextSameClass: %HaveSameMap(ctx(1), ctx(2)),
  contextFast: %HasFastProperties(ctx(3)),
}));
`;

describe('the per-request objects', () => {
  it('give same-shaped requests, contexts and results one hidden class, with fast properties', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--allow-natives-syntax', '--input-type=module', '-e', PROBE],
      { timeout: 30_000 },
    );
    expect(JSON.parse(stdout)).toEqual({
      liftSameClass: true,
      liftFast: true,
      readSameClass: true,
      callSameClass: true,
      readFast: true,
      contextSameClass: true,
      contextFast: true,
    });
  });
});
