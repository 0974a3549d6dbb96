import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback web site for the fetcher's tests, recording every request it receives. */
export interface FixtureSite {
  port: number;
  /** Every request, in order: path (with query) and headers. */
  requests: Array<{ path: string; headers: IncomingHttpHeaders }>;
  /** How many requests asked for exactly this path. */
  count(path: string): number;
  /** How many client connections are open right now. */
  openConnections(): Promise<number>;
  close(): Promise<void>;
}

/** Starts a site on 127.0.0.1 (a random port); `handler` answers; unanswered paths hang until closed. */
export async function startFixtureSite(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<FixtureSite> {
  const requests: FixtureSite['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '/', headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    count: (path) => requests.filter((r) => r.path === path).length,
    openConnections: () =>
      new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
