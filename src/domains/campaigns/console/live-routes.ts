import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../../kernel/errors.ts';
import { STATIC_ASSET } from '../../../web/console/context.ts';
import { bearerOf, sendOwnerError } from '../../../web/console/owner-errors.ts';
import type { ConsoleOwner } from '../../identity/index.ts';
import { CAMPAIGN_ID } from './campaign-forms.ts';
import { memberNames } from './campaign-views.ts';
import type { ConsoleContext } from './context.ts';
import { HEARTBEAT, presentLiveEvent, STREAM_START, sseFrame } from './live-events.ts';
import { endStream, LiveStreams, MAX_LIVE_STREAMS_PER_OWNER } from './live-streams.ts';

/**
 * The live campaign page (issue 15 item 4): `GET /console/campaigns/{id}/live` streams the
 * campaign's ledger to its owner as server-sent events, from the same wake-ups events_watch
 * uses, and `/console/live.js` is the script that follows it on the page. The page works the
 * same without the script; the script only saves a reload.
 */

const hidden = { schema: { hide: true } };

/** A file, not an inline script: the console's CSP allows scripts from this origin only. */
const SCRIPT = readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets', 'live.js'),
  'utf8',
);

/** Silence longer than this gets a comment line (proxies drop idle connections after 30-60 s). */
const HEARTBEAT_MS = 15_000;

/** Events read and sent per round; a page far behind catches up in several. */
const BATCH = 100;

/** A ledger position as a browser sends it back (Last-Event-ID) or the page gives it (?after=). */
const SEQ = /^\d{1,15}$/;

/** Who the stream is for, and how to ask again whether that still holds. */
interface LiveAuth {
  owner: ConsoleOwner;
  stillValid: () => Promise<boolean>;
}

export function liveRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const streams = new LiveStreams();
  // Before the server waits for its connections: a live page never ends on its own.
  app.addHook('preClose', async () => streams.closeAll());

  app.get('/console/live.js', STATIC_ASSET, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(SCRIPT),
  );

  app.get('/console/campaigns/:campaign_id/live', hidden, async (req, reply) => {
    const auth = await authenticate(ctx, req);
    if (!auth) {
      const presented = req.headers.authorization !== undefined;
      reply.header(
        'www-authenticate',
        `Bearer realm="cairn-owner"${presented ? ', error="invalid_token"' : ''}`,
      );
      return sendOwnerError(
        reply,
        'UNAUTHENTICATED',
        presented
          ? 'The owner API token is invalid, expired or revoked.'
          : 'Sign in to the console first, or send Authorization: Bearer with an owner API token (cd_own_…).',
      );
    }
    const campaignId = (req.params as { campaign_id: string }).campaign_id;
    if (!CAMPAIGN_ID.test(campaignId)) return sendOwnerError(reply, 'NOT_FOUND', 'No such campaign.');
    // A reconnecting browser sends the last id it got; the page's first connection says where it began.
    const given = header(req, 'last-event-id') ?? (req.query as Record<string, unknown>).after;
    if (given !== undefined && (typeof given !== 'string' || !SEQ.test(given))) {
      return sendOwnerError(
        reply,
        'BAD_REQUEST',
        'Last-Event-ID (or after) must be a ledger seq: digits only.',
      );
    }
    let campaign: Awaited<ReturnType<ConsoleContext['campaigns']['campaign']>>;
    try {
      // The same check as the page: another owner's campaign does not exist here (404).
      campaign = await ctx.campaigns.campaign(auth.owner.id, campaignId);
    } catch (err) {
      if (err instanceof DomainError) return sendOwnerError(reply, err.code, err.message, err.details, err);
      throw err;
    }
    const admitted = streams.admit(auth.owner.id, reply.raw);
    if (admitted === 'full') {
      return sendOwnerError(
        reply,
        'RATE_LIMITED',
        `You already have ${MAX_LIVE_STREAMS_PER_OWNER} live console pages open on this server; that is the most one owner may hold.`,
        { limit: MAX_LIVE_STREAMS_PER_OWNER },
        {
          next: 'Close a console tab you no longer watch, then reload this page. Without live updates the page still works: reload it to see changes.',
        },
      );
    }
    if (admitted === 'gone') {
      // Nobody to answer: Fastify must not try to send on the closed socket.
      reply.hijack();
      reply.raw.destroy();
      return;
    }
    if (admitted === 'closing') {
      reply.header('retry-after', '1');
      return sendOwnerError(
        reply,
        'SERVICE_UNAVAILABLE',
        'This server is shutting down; reconnect to continue.',
      );
    }
    reply.hijack();
    reply.raw.writeHead(200, {
      // Headers set by hooks so far (the console's CSP and helmet's): hijacking bypasses Fastify's sending.
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store, no-transform',
      'x-accel-buffering': 'no',
      'x-request-id': req.id,
      // A stream's connection is never reused: when it ends, the socket goes too.
      connection: 'close',
    });
    reply.raw.write(STREAM_START);
    const from = given === undefined ? campaign.ledger.last_seq : Number(given);
    void follow(ctx, reply.raw, req.log, auth, campaignId, from, memberNames(campaign.members));
  });
}

/**
 * Sends the owner's events after `seq` until the page goes away, the server closes, or the
 * session or token that opened it ends (checked before every batch and at every heartbeat).
 */
async function follow(
  ctx: ConsoleContext,
  raw: ServerResponse,
  log: FastifyBaseLogger,
  auth: LiveAuth,
  campaignId: string,
  from: number,
  initialNames: Map<string, string>,
) {
  const gone = new AbortController();
  raw.on('close', () => gone.abort());
  let names = initialNames;
  let seq = from;
  let checked = performance.now();
  let why = 'the stream ended';
  try {
    while (!gone.signal.aborted && !raw.writableEnded) {
      const opts = { waitMs: HEARTBEAT_MS, limit: BATCH, signal: gone.signal };
      const got = await ctx.campaigns.liveEvents(auth.owner.id, campaignId, seq, opts);
      // Closed: the ledger waiter stopped, which happens when the server drains (or the page left).
      if (got.closed) {
        why = 'this server is shutting down';
        break;
      }
      if (raw.writableEnded) break;
      // Before any events are sent the session or token is checked again, so a sign-out or a
      // revoked token stops the page's feed at once; a quiet stream is checked every heartbeat.
      if (got.events.length > 0 || performance.now() - checked >= HEARTBEAT_MS) {
        if (!(await auth.stillValid())) {
          why = 'you are signed out';
          break;
        }
        checked = performance.now();
      }
      if (got.events.length === 0) {
        await send(raw, HEARTBEAT);
        continue;
      }
      // A member that joined after the stream opened is named like the others.
      if (got.events.some((e) => 'agent_id' in e.actor && !names.has(e.actor.agent_id))) {
        names = memberNames((await ctx.campaigns.campaign(auth.owner.id, campaignId)).members);
      }
      for (const e of got.events) {
        await send(raw, sseFrame(presentLiveEvent(e, names)));
        seq = e.seq;
      }
    }
  } catch (err) {
    // The database went away, most likely: the browser reconnects and resumes from its last id.
    log.warn({ err }, 'live campaign stream ended by an error; the page reconnects');
    why = 'the server could not read the ledger';
  }
  endStream(raw, why);
}

/** Writes, and waits when the client reads slower than events come (or until it is gone). */
async function send(raw: ServerResponse, chunk: string): Promise<void> {
  if (raw.writableEnded || raw.destroyed || raw.write(chunk)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      raw.off('drain', done);
      raw.off('close', done);
      resolve();
    };
    raw.on('drain', done);
    raw.on('close', done);
  });
}

/**
 * The owner behind the request: an owner API token when one is sent (as on /v1), else the
 * console session the console's hook resolved. Null when neither holds.
 */
async function authenticate(ctx: ConsoleContext, req: FastifyRequest): Promise<LiveAuth | null> {
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    const bearer = bearerOf(authorization);
    const found = bearer ? await ctx.owners.tokens.authenticate(bearer) : null;
    if (!bearer || !found) return null;
    const ownerId = found.owner.id;
    return {
      owner: found.owner,
      stillValid: async () => (await ctx.owners.tokens.authenticate(bearer))?.owner.id === ownerId,
    };
  }
  const cookie = req.cookies[ctx.cookieName.session];
  const owner = req.owner;
  if (!owner || !cookie) return null;
  return {
    owner,
    // Signing out (or the session expiring) ends the stream within a heartbeat.
    stillValid: async () => (await ctx.owners.resolveSession(cookie))?.owner.id === owner.id,
  };
}

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}
