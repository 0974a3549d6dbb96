import cookie from '@fastify/cookie';
import type { FastifyError, FastifyInstance } from 'fastify';
import { AREAS } from '../../domains/catalog.ts';
import type { Area } from '../../framework/index.ts';
import { DomainError, httpStatusOf } from '../../kernel/errors.ts';
import { cookieOptions, STATIC_ASSET, sendPage } from '../../web/console/context.ts';
import { CONSOLE_CSP } from '../../web/console/csp.ts';
import { messagePage, setConsoleNav } from '../../web/console/layout.ts';
import { CONSOLE_CSS, CONSOLE_ICON } from '../../web/console/style.ts';
import type { BodyDecoder } from '../../web/http/large-body.ts';
import type { DoorContextOfAll } from '../door-context.ts';
import { ownerApiRoutes } from './owner-api-routes.ts';

export { CONSOLE_CSP } from '../../web/console/csp.ts';

/**
 * The owner console: server-rendered pages that need no JavaScript (the campaign page's live.js
 * only saves a reload). Routes are thin: they check the
 * session and the CSRF token, parse the form, call one service method and render the result.
 */
export async function consoleRoutes(
  app: FastifyInstance,
  ctx: DoorContextOfAll,
  bodies: BodyDecoder,
): Promise<void> {
  setConsoleNav(AREAS.flatMap((area) => (area as Area).doors?.nav ?? []));
  await app.register(cookie);
  // The JSON operations for a signed-in person. Registered before the page hooks and error
  // handler below: a child plugin gets a copy of its parent's hooks when it is created, so it
  // inherits the cookie parser but none of the HTML handling.
  await app.register(async (api) => ownerApiRoutes(api, ctx, bodies));

  app.addHook('onRequest', async (req, reply) => {
    // Replaces helmet's default policy for these routes; pages carry secrets shown once, so no caching.
    reply.header('content-security-policy', CONSOLE_CSP);
    if (!req.routeOptions.config.staticAsset) reply.header('cache-control', 'no-store');
  });

  app.addHook('preHandler', async (req, reply) => {
    if (req.routeOptions.config.staticAsset) return;
    const value = req.cookies[ctx.cookieName.session];
    if (!value) return;
    const session = await ctx.owners.resolveSession(value);
    if (session) {
      req.owner = session.owner;
      req.ownerSessionId = session.sessionId;
    } else {
      reply.clearCookie(ctx.cookieName.session, cookieOptions(ctx));
    }
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const owner = req.owner;
    const csrf = req.ownerSessionId ? ctx.csrf.forSession(req.ownerSessionId) : undefined;
    if (err instanceof DomainError) {
      const title = err.code === 'NOT_FOUND' ? 'Not found' : 'That did not work';
      // A lock (pairing codes, sign-ins) says when it ends, to people and to scripts alike.
      const retry = err.details.retry_after_seconds;
      if (typeof retry === 'number') reply.header('retry-after', String(retry));
      return sendPage(
        reply,
        httpStatusOf(err.code),
        messagePage({ title, message: err.message, owner, csrf }),
      );
    }
    const status = err.statusCode ?? 500;
    if (status < 500) {
      return sendPage(
        reply,
        status,
        messagePage({ title: 'Bad request', message: err.message, owner, csrf }),
      );
    }
    req.log.error({ err }, 'console error');
    return sendPage(
      reply,
      500,
      messagePage({
        title: 'Something went wrong',
        message: `The server failed to answer. The operator can find it by request id ${req.id}.`,
        owner,
        csrf,
      }),
    );
  });

  app.get('/console/style.css', STATIC_ASSET, async (_req, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(CONSOLE_CSS),
  );

  app.get('/console/favicon.svg', STATIC_ASSET, async (_req, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(CONSOLE_ICON),
  );

  for (const area of AREAS) (area as Area).doors?.pages?.(app, ctx);

  // A mistyped console address gets a page a person can read, not the JSON envelope.
  app.get('/console/*', { schema: { hide: true } }, async (req, reply) => {
    const csrf = req.ownerSessionId ? ctx.csrf.forSession(req.ownerSessionId) : undefined;
    const message = 'There is no console page at this address.';
    return sendPage(reply, 404, messagePage({ title: 'Not found', message, owner: req.owner, csrf }));
  });
}
