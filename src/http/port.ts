// Whether this process may listen on a port, asked before anything else starts: `serve` on
// a port in use must stop before it creates a data directory and prints the keys of a
// server that never ran. The listen itself asks again (another process may take the port
// in between).
import { createServer } from 'node:net';

export const portRefusal = (host: string, port: number): string =>
  `could not listen on ${host}:${port}: the port is in use (another hedgerow?) or not allowed; choose one with --port or PORT`;

// Binds host:port and lets it go; rejects with portRefusal's message when it cannot. Port 0
// (any free port) cannot clash.
export function probePort(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', () => reject(new Error(portRefusal(host, port))));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}
