// How every part of hedgerow connects to NATS. Each concern has a connection of its own
// (capture's log, each consumer thread's reader, the control stream, the leases, the
// exports, the query statuses, …), on purpose: a connection is one socket with one
// outgoing buffer, and capture's publishes of up to a megabyte each must never hold a
// lease renewal or a control-stream acknowledgement behind them (docs/decisions/0031). A
// server a process connects to can have many thousands of connections; a node uses about
// ten.
//
// `url` may list several servers of one cluster, comma-separated (NATS_URL as operators
// write it): the client takes them as a list, connects to one and moves to another when
// that one is lost.
import { connect, type NatsConnection } from 'nats';

// A long-lived connection: it reconnects for ever, every half second, so a restarting
// server never leaves the process with a dead connection for good. `once`: a one-shot
// command (the CLI) that should fail at once when the server is not there.
export function connectNats(url: string, name: string, opts: { once?: boolean } = {}): Promise<NatsConnection> {
  const servers = url.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return connect(opts.once
    ? { servers, name, maxReconnectAttempts: 0 }
    : { servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
}
