import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, httpStatusOf } from '../../../kernel/errors.ts';
import {
  cookieOptions,
  formField,
  preSessionToken,
  preSessionValid,
  safeNext,
  seeOther,
  sendPage,
  sessionTokenValid,
} from '../../../web/console/context.ts';
import { parseForm } from '../../../web/console/fields.ts';
import { messagePage } from '../../../web/console/layout.ts';
import { signInPage, signUpPage } from './auth-views.ts';
import type { ConsoleContext } from './context.ts';
import { signInForm, signUpForm } from './forms.ts';

const hidden = { schema: { hide: true } };
const FORGED =
  'This form expired or did not come from this site, so nothing was done. Please try again on this page.';

/** Sign-up, sign-in and sign-out. The signed-out forms are bound to a pre-session cookie. */
export function authRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const query = (req: FastifyRequest) => (req.query ?? {}) as Record<string, unknown>;

  const showSignIn = async (
    req: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: { error?: string; info?: string; email?: string; next?: string | null } = {},
  ) =>
    sendPage(
      reply,
      status,
      signInPage({
        csrf: preSessionToken(ctx, req, reply),
        next: extra.next ?? null,
        signUpOpen: (await ctx.owners.signUpState()) !== 'CLOSED',
        ...(extra.email !== undefined ? { email: extra.email } : {}),
        ...(extra.error ? { error: extra.error } : {}),
        ...(extra.info ? { info: extra.info } : {}),
      }),
    );

  app.get('/console/signin', hidden, async (req, reply) => {
    const next = safeNext(query(req).next);
    if (req.owner) return seeOther(reply, next ?? '/console');
    const info = query(req).done === 'signed_out' ? 'You are signed out.' : undefined;
    return showSignIn(req, reply, 200, { next, ...(info ? { info } : {}) });
  });

  app.post('/console/signin', hidden, async (req, reply) => {
    const next = safeNext(formField(req, 'next'));
    const email = (formField(req, 'email') ?? '').slice(0, 254);
    if (!preSessionValid(ctx, req)) return showSignIn(req, reply, 403, { error: FORGED, email, next });
    const form = parseForm(signInForm, req.body);
    if (!form.ok) return showSignIn(req, reply, 422, { error: form.message, email, next });
    try {
      const started = await ctx.owners.signIn(form.data.email, form.data.password, req.ip);
      reply.setCookie(ctx.cookieName.session, started.cookie, cookieOptions(ctx));
      reply.clearCookie(ctx.cookieName.pre, cookieOptions(ctx));
      return seeOther(reply, next ?? '/console');
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const retry = err.details.retry_after_seconds;
      if (typeof retry === 'number') reply.header('retry-after', String(retry));
      return showSignIn(req, reply, httpStatusOf(err.code), { error: err.message, email, next });
    }
  });

  const closed = (req: FastifyRequest, reply: FastifyReply) =>
    sendPage(
      reply,
      403,
      messagePage({
        title: 'Sign-up is closed',
        message:
          'This Cairn already has an owner, and the operator has not opened sign-up. Ask them for an account, or sign in.',
        owner: req.owner,
        links: [['/console/signin', 'Sign in']],
      }),
    );

  app.get('/console/signup', hidden, async (req, reply) => {
    const state = await ctx.owners.signUpState();
    if (state === 'CLOSED') return closed(req, reply);
    return sendPage(
      reply,
      200,
      signUpPage({ csrf: preSessionToken(ctx, req, reply), first: state === 'FIRST' }),
    );
  });

  app.post('/console/signup', hidden, async (req, reply) => {
    const email = (formField(req, 'email') ?? '').slice(0, 254);
    const again = async (status: number, error: string) =>
      sendPage(
        reply,
        status,
        signUpPage({
          csrf: preSessionToken(ctx, req, reply),
          email,
          error,
          first: (await ctx.owners.signUpState()) === 'FIRST',
        }),
      );
    if (!preSessionValid(ctx, req)) return again(403, FORGED);
    const form = parseForm(signUpForm, req.body);
    if (!form.ok) return again(422, form.message);
    try {
      const started = await ctx.owners.signUp(form.data.email, form.data.password);
      reply.setCookie(ctx.cookieName.session, started.cookie, cookieOptions(ctx));
      reply.clearCookie(ctx.cookieName.pre, cookieOptions(ctx));
      return seeOther(reply, '/console?done=welcome');
    } catch (err) {
      if (err instanceof DomainError && err.code === 'SIGNUP_CLOSED') return closed(req, reply);
      if (err instanceof DomainError) return again(httpStatusOf(err.code), err.message);
      throw err;
    }
  });

  app.post('/console/signout', hidden, async (req, reply) => {
    const cookie = req.cookies[ctx.cookieName.session];
    if (req.owner && !sessionTokenValid(ctx, req)) {
      return sendPage(
        reply,
        403,
        messagePage({
          title: 'Not signed out',
          message: FORGED,
          owner: req.owner,
          links: [['/console', 'Back']],
        }),
      );
    }
    if (cookie) await ctx.owners.signOut(cookie);
    reply.clearCookie(ctx.cookieName.session, cookieOptions(ctx));
    return seeOther(reply, '/console/signin?done=signed_out');
  });
}
