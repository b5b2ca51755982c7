// A TCP proxy in front of a server, so that a test can come between a client and the
// server without touching either: `cut` is a network partition (every connection through it
// closed, new ones refused), `freeze` a silent one (connections stay open, nothing passes
// either way; what was sent is held and passed on, in order, at `thaw`).
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  // nats://127.0.0.1:<port>, for a NATS client.
  natsUrl: string;
  cut(): void;
  heal(): void;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, host = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let cut = false;
  let frozen = false;
  // What arrived while frozen, each chunk with where it goes.
  let held: [Socket, Buffer][] = [];
  const forward = (from: Socket, to: Socket) => {
    from.on('data', (d: Buffer) => { if (frozen) held.push([to, d]); else to.write(d); });
    from.on('close', () => to.destroy());
    from.on('error', () => to.destroy());
  };
  const server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    port,
    natsUrl: `nats://${host}:${port}`,
    cut() {
      cut = true;
      held = [];
      for (const s of sockets) s.destroy();
    },
    heal() { cut = false; },
    freeze() { frozen = true; },
    thaw() {
      frozen = false;
      for (const [to, d] of held) if (!to.destroyed) to.write(d);
      held = [];
    },
    async close() {
      cut = true;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
