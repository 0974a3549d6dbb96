import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../kernel/clock.ts';
import { Csrf, PRE_SESSION_MAX_MS } from './csrf.ts';
import type { SafeHtml } from './html.ts';

/** A person signed in to the console (or holding an owner API token): the owner of agents. */
export interface ConsoleOwner {
  id: string;
  email: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route also takes a download ticket in place of a session (see the owner API hook). */
    ticketAuth?: boolean;
    /** The route also takes an agent's own MCP bearer (see the owner API hook). */
    agentAuth?: boolean;
    /** A file the same for everyone (style, scripts): no session is read, and it may be cached. */
    staticAsset?: boolean;
  }

  interface FastifyRequest {
    /** The signed-in owner, set by the console's session hook. */
    owner?: ConsoleOwner;
    /** The stored id of the owner's console session (what the CSRF token is bound to). */
    ownerSessionId?: string;
    /** On `/v1/…`: the owner API token the request was authenticated with, when not a session. */
    ownerTokenId?: string;
    /** On the few `/v1/…` routes a worker calls with its own MCP credential: who it is. */
    agentCaller?: { agentId: string; ownerId: string };
  }
}

/** What every console page and form shares: the CSRF signer and the cookie rules. */
export interface WebContext {
  csrf: Csrf;
  /** Cookies are Secure (and __Host- prefixed) when the console is served over https. */
  secure: boolean;
  cookieName: { session: string; pre: string };
  baseUrl: string;
  clock: Clock;
}

/** The console's shared rules for a server at `baseUrl`, its CSRF tokens keyed with `secret`. */
export function webContext(secret: string, baseUrl: string, clock: Clock): WebContext {
  const secure = baseUrl.startsWith('https:');
  const prefix = secure ? '__Host-' : '';
  return {
    csrf: new Csrf(secret, clock),
    secure,
    cookieName: { session: `${prefix}cairn_session`, pre: `${prefix}cairn_pre` },
    baseUrl,
    clock,
  };
}

/** The route options of a static console file: hidden from the OpenAPI document, no session read. */
export const STATIC_ASSET = { schema: { hide: true }, config: { staticAsset: true } };

/** HttpOnly, SameSite=Lax, Path=/, Secure under https; a max age only for the pre-session cookie. */
export function cookieOptions(ctx: WebContext, maxAgeSeconds?: number): CookieSerializeOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: ctx.secure,
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  };
}

/** The CSRF token of the signed-in owner's forms. */
export function sessionToken(ctx: WebContext, req: FastifyRequest): string {
  return ctx.csrf.forSession(req.ownerSessionId ?? '');
}

/** The CSRF token of a signed-out form, setting a fresh pre-session cookie when needed. */
export function preSessionToken(ctx: WebContext, req: FastifyRequest, reply: FastifyReply): string {
  let pre = req.cookies[ctx.cookieName.pre];
  if (!ctx.csrf.preSessionValid(pre)) {
    pre = ctx.csrf.newPreSession();
    reply.setCookie(ctx.cookieName.pre, pre, cookieOptions(ctx, PRE_SESSION_MAX_MS / 1000));
  }
  return ctx.csrf.forPreSession(pre);
}

/** Whether a signed-out form's token matches its pre-session cookie. */
export function preSessionValid(ctx: WebContext, req: FastifyRequest): boolean {
  const pre = req.cookies[ctx.cookieName.pre];
  return (
    ctx.csrf.preSessionValid(pre) && ctx.csrf.matches(ctx.csrf.forPreSession(pre), formField(req, 'csrf'))
  );
}

/** Whether a signed-in form's token matches the owner's session. */
export function sessionTokenValid(ctx: WebContext, req: FastifyRequest): boolean {
  return req.ownerSessionId !== undefined && ctx.csrf.matches(sessionToken(ctx, req), formField(req, 'csrf'));
}

/** One field of a posted form, when it is a single string. */
export function formField(req: FastifyRequest, name: string): string | undefined {
  const body = req.body;
  if (!body || typeof body !== 'object') return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

export function sendPage(reply: FastifyReply, status: number, page: SafeHtml) {
  return reply.code(status).type('text/html; charset=utf-8').send(page.value);
}

/** 303 See Other: after a form post the browser fetches the next page with GET. */
export function seeOther(reply: FastifyReply, location: string) {
  return reply.code(303).header('location', location).send();
}

/** Where sign-in sends the owner back to: only same-origin console and pairing paths. */
export function safeNext(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 512 || value.includes('\\')) return null;
  return /^\/(?:console|pair)(?:[/?][\x21-\x7e]*)?$/.test(value) ? value : null;
}

export function signInUrl(next: string | null): string {
  return next ? `/console/signin?next=${encodeURIComponent(next)}` : '/console/signin';
}
