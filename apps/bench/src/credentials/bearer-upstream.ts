#!/usr/bin/env node
/**
 * A testkit upstream checking bearer tokens for section 10: one TestServer (echo tools) behind two HTTP
 * listeners, one accepting only BENCH_STATIC_TOKEN, the other only BENCH_PERSONAL_TOKEN (401 otherwise).
 * usage: node bearer-upstream.js --tools N; prints `{"staticUrl","personalUrl","controlUrl"}`.
 */
import type { IncomingMessage } from 'node:http';
import { parseArgs } from 'node:util';
import { TestServer } from '@switchyard/testkit';

const { values } = parseArgs({ options: { tools: { type: 'string', default: '5' } }, strict: true });
const staticToken = process.env.BENCH_STATIC_TOKEN;
const personalToken = process.env.BENCH_PERSONAL_TOKEN;
if (!staticToken || !personalToken) {
  process.stderr.write('bearer-upstream: set BENCH_STATIC_TOKEN and BENCH_PERSONAL_TOKEN\n');
  process.exit(2);
}

const server = new TestServer({ name: 'tracker', resources: 0, tools: Number(values.tools) });
const bearer = (token: string) => (req: IncomingMessage) => req.headers.authorization === `Bearer ${token}`;
const staticSide = await server.listenHttp({ host: '127.0.0.1', port: 0, authorize: bearer(staticToken) });
const personalSide = await server.listenHttp({
  host: '127.0.0.1',
  port: 0,
  authorize: bearer(personalToken),
});
process.stdout.write(
  `${JSON.stringify({ staticUrl: staticSide.url, personalUrl: personalSide.url, controlUrl: staticSide.controlUrl })}\n`,
);

const stop = (): void => {
  void server.close().finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
