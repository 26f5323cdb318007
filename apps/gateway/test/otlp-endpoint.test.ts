import { expect, it } from 'vitest';
import { signalUrl } from '../src/otlp-endpoint.js';

it("appends v1/<signal> to the endpoint's path, its query and userinfo kept where they are", () => {
  // Found from outside: the signal path was glued onto the query (`/v1base?key=K2/v1/metrics`).
  expect(signalUrl('http://127.0.0.1:4318', 'traces')).toBe('http://127.0.0.1:4318/v1/traces');
  expect(signalUrl('http://127.0.0.1:4318/', 'metrics')).toBe('http://127.0.0.1:4318/v1/metrics');
  expect(signalUrl('https://c.example/otlp//?key=K2&x=1', 'metrics')).toBe(
    'https://c.example/otlp/v1/metrics?key=K2&x=1',
  );
  expect(signalUrl('http://u:p@127.0.0.1:1/base?k=v', 'traces')).toBe(
    'http://u:p@127.0.0.1:1/base/v1/traces?k=v',
  );
});
