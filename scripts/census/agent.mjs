// Loaded into the gateway process with `node --import` by scripts/census/run.mjs: counts JSON.parse and
// JSON.stringify calls, and answers a small control API on 127.0.0.1 (its URL printed on stderr) that
// starts and stops a window of precise coverage (call counts per function) and heap sampling through the
// in-process inspector. Measurement only: never part of the product.
import { createServer } from 'node:http';
import { Session } from 'node:inspector';

const counts = { parse: 0, stringify: 0 };
let counting = false;
const { parse, stringify } = JSON;
JSON.parse = function countedParse(...args) {
  if (counting) counts.parse++;
  return parse.apply(this, args);
};
JSON.stringify = function countedStringify(...args) {
  if (counting) counts.stringify++;
  return stringify.apply(this, args);
};

const session = new Session();
session.connect();
const post = (method, params = {}) =>
  new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
await post('Profiler.enable');
await post('HeapProfiler.enable');

const server = createServer(async (req, res) => {
  try {
    if (req.url === '/start') {
      await post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
      await post('Profiler.takePreciseCoverage'); // resets the counters
      await post('HeapProfiler.startSampling', {
        samplingInterval: 64,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      counts.parse = 0;
      counts.stringify = 0;
      counting = true;
      return void res.end('{}');
    }
    if (req.url === '/stop') {
      counting = false;
      const json = { ...counts };
      const { result: coverage } = await post('Profiler.takePreciseCoverage');
      await post('Profiler.stopPreciseCoverage');
      const { profile } = await post('HeapProfiler.stopSampling');
      res.setHeader('content-type', 'application/json');
      return void res.end(stringify({ json, coverage: coverage.map(slim), heap: heapBy(profile) }));
    }
    res.statusCode = 404;
    res.end();
  } catch (error) {
    res.statusCode = 500;
    res.end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`census agent on http://127.0.0.1:${server.address().port}\n`);
});
server.unref();

/** A script's functions with their call counts (the first range of each is the whole function). */
function slim(script) {
  return {
    url: script.url,
    functions: script.functions.map((f) => ({ name: f.functionName, count: f.ranges[0]?.count ?? 0 })),
  };
}

/** Sampled allocation bytes by the script URL of the allocating frame. */
function heapBy(profile) {
  const bytes = {};
  const walk = (node) => {
    const url = node.callFrame.url || `(${node.callFrame.functionName || 'native'})`;
    if (node.selfSize > 0) bytes[url] = (bytes[url] ?? 0) + node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return bytes;
}
