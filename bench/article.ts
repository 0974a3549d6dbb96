import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A long article page (~500 KB of HTML) and a loopback server for it, for the reading benchmark. */

export function longArticle(targetBytes = 500_000): string {
  const sections: string[] = [];
  let size = 0;
  for (let i = 0; size < targetBytes; i++) {
    const section = `<h2>Section ${i}</h2><p>Section ${i} describes the cairns of valley ${i}, their stones, the walkers who built them and the weather that shaped them over many winters on the high ground.</p><p>${'Moss and lichen cover the older stones, and the newer ones sit on top. '.repeat(8)}</p><ul><li>Height: ${i % 7} m</li><li>Built: ${1800 + (i % 200)}</li></ul>`;
    sections.push(section);
    size += section.length;
  }
  return `<!doctype html><html><head><meta charset="utf-8"><title>The long guide</title><script>var x = 1;</script></head><body><nav><a href="/">Home</a></nav><article><h1>The long guide</h1>${sections.join('\n')}</article><footer>Footer</footer></body></html>`;
}

export interface ArticleSite {
  url: string;
  port: number;
  bytes: number;
  close(): Promise<void>;
}

/**
 * Serves the article at /article; everything else (robots.txt included) is 404, which allows all.
 * With `unique`, every answer ends in a different comment, so no two reads store the same bytes.
 */
export async function serveArticle(unique = false): Promise<ArticleSite> {
  const page = Buffer.from(longArticle());
  let served = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === '/article') {
      const body = unique ? Buffer.concat([page, Buffer.from(`<!-- ${++served} -->`)]) : page;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
      return res.end(body);
    }
    res.writeHead(404).end();
  });
  // Node closes a keep-alive connection idle for 5 s by default, and a client reusing it at that
  // moment gets ECONNRESET (seen once in a full run, in the plain baseline): keep them longer.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/article`,
    port,
    bytes: page.length,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
