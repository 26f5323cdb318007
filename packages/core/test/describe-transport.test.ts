import { expect, it } from 'vitest';
import {
  describeTransport,
  escapeControls,
  transportSecretMask,
  upstreamSecretMask,
  upstreamSecrets,
  urlSecretMask,
} from '../src/transports/upstream/describe.js';

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

it('masks a URL and its secrets wherever an error text quotes them', () => {
  const mask = urlSecretMask('http://alice:PW%40SECRET@127.0.0.1:1/sse?token=TOKSECRET&v=2')!;
  expect(
    mask(
      'Request cannot be constructed from a URL that includes credentials: http://alice:PW%40SECRET@127.0.0.1:1/sse?token=TOKSECRET&v=2',
    ),
  ).toBe(
    'Request cannot be constructed from a URL that includes credentials: http://***:***@127.0.0.1:1/sse?token=***&v=***',
  );
  // Alone, raw or decoded; a short value (`v=2`) is no secret worth masking every "2" for.
  expect(mask('refused PW@SECRET / PW%40SECRET, token TOKSECRET, v 2')).toBe(
    'refused *** / ***, token ***, v 2',
  );
  expect(urlSecretMask('http://127.0.0.1:1/sse')).toBeUndefined();
});

it("masks a connection's every credential an upstream may echo: header values, Basic userinfo, any Bearer", () => {
  const mask = transportSecretMask('http://bob:hunter22@127.0.0.1:1/mcp', {
    authorization: 'Token CONFIGURED9',
    'x-api-key': 'KEY-123456',
  });
  expect(
    mask(
      'got Token CONFIGURED9 / CONFIGURED9, x-api-key KEY-123456, Basic Ym9iOmh1bnRlcjIy, Bearer eyJhbGciOi.x.y, ok',
    ),
  ).toBe('got *** / ***, x-api-key ***, Basic ***, Bearer ***, ok');
  // A connection without secrets of its own still has any Bearer or Basic value masked (OAuth tokens).
  expect(transportSecretMask('http://127.0.0.1:1/mcp')('sent Bearer abcdef123 and bearer ghijkl456')).toBe(
    'sent Bearer *** and bearer ***',
  );
});

it("masks an upstream's OAuth client secret and a spawned server's env values: one list for every path", () => {
  // Found from outside: an issuer quoting the posted client_secret reached /readyz and the log unmasked.
  const remote = {
    kind: 'http' as const,
    url: 'http://127.0.0.1:1/mcp?key=QUERYSECRET',
    headers: { authorization: 'Bearer HEADERSECRET' },
    auth: {
      kind: 'clientCredentials' as const,
      issuer: 'http://idp',
      clientId: 'gw',
      clientSecret: 'CLIENTSECRET',
    },
  };
  expect(upstreamSecrets(remote)).toEqual(
    expect.arrayContaining(['Bearer HEADERSECRET', 'HEADERSECRET', 'CLIENTSECRET', 'QUERYSECRET']),
  );
  expect(upstreamSecretMask(remote)('invalid_client: secret CLIENTSECRET, key QUERYSECRET')).toBe(
    'invalid_client: secret ***, key ***',
  );
  const stdio = {
    kind: 'stdio' as const,
    command: 'node',
    args: [],
    env: { TOKEN: 'ENVSECRET', DEBUG: '1' },
  };
  expect(upstreamSecretMask(stdio)('token ENVSECRET debug 1')).toBe('token *** debug 1');
});

it('shows the control characters an upstream put in a text escaped, newlines and tabs kept', () => {
  // Found from outside: an upstream's ESC sequences and bell reached the log, /readyz and the check table.
  expect(escapeControls('denied \u001b[31mred\u001b[0m bell\u0007 \r\n\tend')).toBe(
    'denied \\u001b[31mred\\u001b[0m bell\\u0007 \\u000d\n\tend',
  );
  const stdio = { kind: 'stdio' as const, command: 'node', args: [], env: {} };
  expect(upstreamSecretMask(stdio)('a \u009b2J b')).toBe('a \\u009b2J b');
});
