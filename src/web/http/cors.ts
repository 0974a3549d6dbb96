import type { FastifyInstance } from 'fastify';

interface CorsOptions {
  methods: string[];
  headers?: string[];
  expose?: string[];
}

/**
 * CORS for the public routes a browser-based MCP client calls before it holds a token: public
 * documents, OAuth discovery and the token, device, registration and revocation endpoints. Any
 * origin may call them because none of them reads a cookie: credentials are bearer tokens the
 * client holds, and a page without one gains nothing. The console and the owner API are
 * deliberately left out; /mcp answers only the origins it allows (`allowOrigins`).
 */
export function allowAnyOrigin(app: FastifyInstance, paths: string[], opts: CorsOptions): void {
  allowOrigins(app, paths, { ...opts, origins: 'any' });
}

/**
 * CORS for routes that answer some origins only. `origins` decides for a present Origin header;
 * an allowed one is echoed (with `Vary: Origin`), others get no CORS headers, so a browser keeps
 * the answer from the page. With `any`, every origin gets `*`, as `allowAnyOrigin` gives.
 */
export function allowOrigins(
  app: FastifyInstance,
  paths: string[],
  opts: CorsOptions & { origins: 'any' | ((origin: string) => boolean) },
): void {
  const listed = new Set(paths);
  const { origins } = opts;
  app.addHook('onRequest', async (req, reply) => {
    // Only the listed routes: other routes of the same scope (e.g. /oauth/authorize) get none.
    if (!listed.has(req.routeOptions.url ?? '')) return;
    const vary = origins === 'any' ? [] : ['Origin'];
    if (req.method === 'OPTIONS') vary.push('Access-Control-Request-Headers');
    if (vary.length > 0) reply.header('vary', vary.join(', '));
    const origin = req.headers.origin;
    if (origins === 'any') reply.header('access-control-allow-origin', '*');
    else if (origin !== undefined && origins(origin)) reply.header('access-control-allow-origin', origin);
    else return;
    if (opts.expose) reply.header('access-control-expose-headers', opts.expose.join(', '));
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
