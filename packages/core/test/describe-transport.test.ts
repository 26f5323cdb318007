import { expect, it } from 'vitest';
import { describeTransport } from '../src/transports/upstream/describe.js';

it('describes an upstream for the logs without a credential: userinfo and query values masked', () => {
  // Found from outside: `?api_key=…` went to the log verbatim (only userinfo was masked).
  const described = [
    describeTransport({ kind: 'sse', url: 'http://127.0.0.1:1/sse?api_key=QSECRET&v=2', headers: {} }),
    describeTransport({ kind: 'http', url: 'https://alice:PWSECRET@mcp.example.com/mcp', headers: {} }),
    describeTransport({ kind: 'ws', url: 'ws://127.0.0.1:3003/mcp?token=T0K3N&token=again', headers: {} }),
  ];
  expect(described).toEqual([
    'sse: http://127.0.0.1:1/sse?api_key=***&v=***',
    'streamable-http: https://***:***@mcp.example.com/mcp',
    'websocket: ws://127.0.0.1:3003/mcp?token=***&token=***',
  ]);
  expect(described.join(' ')).not.toMatch(/SECRET|T0K3N/);
});
