// Preloaded (`node --import`) into the reference server, whose `app.listen(PORT)` binds every interface:
// every TCP listen without a host is pinned to 127.0.0.1, and the address it got is printed to stderr
// (the server itself prints `localhost:${PORT}`, which says 0 when PORT=0 asks for an ephemeral port).
import net from 'node:net';

const LOOPBACK = '127.0.0.1';
const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnLoopback(...args) {
  this.once('listening', () => {
    const address = this.address();
    if (address !== null && typeof address === 'object') {
      process.stderr.write(`switchyard-loopback: listening on http://${LOOPBACK}:${address.port}\n`);
    }
  });
  const [first] = args;
  const callback = typeof args.at(-1) === 'function' ? args.at(-1) : undefined;
  // listen(), listen(cb), listen(port, [host], [backlog], [cb]): the host, if any, is replaced.
  if (first === undefined || typeof first === 'function') {
    return listen.call(this, { port: 0, host: LOOPBACK }, callback);
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    const backlog = args.slice(1).find((a) => typeof a === 'number');
    return listen.call(this, { port: Number(first), host: LOOPBACK, backlog }, callback);
  }
  // listen({ port, host? }): a TCP options object (not a path, handle or fd).
  if (typeof first === 'object' && first.path === undefined && first.fd === undefined && !first._handle) {
    return listen.call(this, { ...first, host: LOOPBACK }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
