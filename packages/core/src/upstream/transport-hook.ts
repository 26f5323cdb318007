import type { JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/client';

type Deliver = NonNullable<Transport['onmessage']>;

/** What a layer over an upstream transport sees of it. */
export interface TransportHooks {
  /** Every message the client sends; passes it on to the transport (or not). */
  send?: Transport['send'];
  /** Every message the transport delivers, with the client's handler to hand it (or something else) to. */
  receive?: (message: JSONRPCMessage, extra: MessageExtraInfo | undefined, deliver: Deliver) => void;
}

/**
 * A transport seen through `hooks`: its `send` and what it delivers go through them, everything else (its
 * other methods, `sessionId`, `setProtocolVersion`, what a subclass adds) reaches the transport itself. How
 * the gateway layers its concerns over one upstream transport: the inbound guard, task results, the
 * correlation of requests with their callers.
 */
export function hookTransport(transport: Transport, hooks: TransportHooks): Transport {
  let onmessage: Transport['onmessage'];
  const { send, receive } = hooks;
  const observe: Deliver = (message, extra) => {
    const deliver = onmessage;
    if (deliver === undefined) return;
    if (receive) receive(message, extra, deliver);
    else deliver(message, extra);
  };
  return new Proxy(transport, {
    get(target, key) {
      if (key === 'send' && send) return send;
      if (key === 'onmessage') return onmessage === undefined ? undefined : observe;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set(target, key, value) {
      if (key === 'onmessage') {
        onmessage = value;
        return Reflect.set(target, key, value === undefined ? undefined : observe, target);
      }
      return Reflect.set(target, key, value, target);
    },
  });
}
