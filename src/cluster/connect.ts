// How a process connects to NATS: every connection with the same options, from this one
// function, opened only by the cluster handle (./nats.ts). `url` may list several servers of
// one cluster, comma-separated (NATS_URL as operators write it): the client takes them as a
// list, connects to one and moves to another when that one is lost.
import { connect, type NatsConnection } from 'nats';
import type { Link } from './types.js';

// A long-lived connection: it reconnects for ever, every half second, so a restarting
// server never leaves the process with a dead connection for good. `once`: a one-shot
// command (`hedgerow status`) that should fail at once when the server is not there.
export function connectNats(url: string, name: string, opts: { once?: boolean } = {}): Promise<NatsConnection> {
  const servers = url.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return connect(opts.once
    ? { servers, name, maxReconnectAttempts: 0 }
    : { servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
}

// The connection as features see it; its state followed so that publishes can fail at once
// while it is down, instead of queueing in the client until their acknowledgement times out.
export function linkOf(nc: NatsConnection): Link {
  let connected = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') connected = false;
      else if (s.type === 'reconnect') connected = true;
    }
  })();
  return {
    nc,
    maxPayload: () => nc.info?.max_payload ?? 1024 * 1024,
    connected: () => connected && !nc.isClosed(),
  };
}
