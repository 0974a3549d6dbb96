import type { FastifyInstance } from 'fastify';

/**
 * CORS for the routes a browser-based MCP client calls: public documents, OAuth discovery and
 * token endpoints, and /mcp. Any origin may call them because none of them reads a cookie:
 * credentials are bearer tokens the client holds, and a page without one gains nothing. The
 * console and the owner API are deliberately left out.
 */
export function allowAnyOrigin(
  app: FastifyInstance,
  paths: string[],
  opts: { methods: string[]; headers?: string[]; expose?: string[] },
): void {
  const listed = new Set(paths);
  app.addHook('onRequest', async (req, reply) => {
    // Only the listed routes: other routes of the same scope (e.g. /oauth/authorize) get none.
    if (!listed.has(req.routeOptions.url ?? '')) return;
    reply.header('access-control-allow-origin', '*');
    if (opts.expose) reply.header('access-control-expose-headers', opts.expose.join(', '));
    if (req.method === 'OPTIONS') reply.header('vary', 'Access-Control-Request-Headers');
  });
  for (const path of paths) {
    app.options(path, { schema: { hide: true } }, async (_req, reply) =>
      reply
        .code(204)
        .header('access-control-allow-methods', [...opts.methods, 'OPTIONS'].join(', '))
        .header('access-control-allow-headers', (opts.headers ?? ['content-type']).join(', '))
        .header('access-control-max-age', '600')
        .send(),
    );
  }
}
