import type { FastifyReply } from 'fastify';
import type { Caller, IdentityService } from '../../domains/identity/index.ts';
import { FEED_LIMITS, type Feed, type FeedFollow } from '../../framework/index.ts';
import { isDatabaseUnavailable } from '../../storage/unavailable.ts';
import { callerNow, followUri, watchFeed } from './feed-watch.ts';
import { META, type RpcId } from './modern-request.ts';

/**
 * `subscriptions/listen` (MCP 2026-07-28): the one long-lived channel of the stateless
 * revision. A listen is a POST answered with an event stream; its JSON-RPC id is its
 * subscription id, and every notification on it carries that id. Nothing is queued for it: a
 * listen hears what changes while it is open, and a client that reconnects re-reads the lists
 * (their caching hints say for how long a copy is good).
 *
 * What can change: the caller's tool list (a mode, a grant, an Arena assignment). The same
 * wake that reaches the 2025-era session streams (NOTIFY on the agent's channel, from any
 * replica) makes each of the agent's listens re-authenticate with the credential it opened
 * with and compare the tool list it would now get with the one it last announced: a
 * `notifications/tools/list_changed` goes out only when they differ, and a credential that no
 * longer authenticates ends the stream (the client's reconnect then meets the 401 challenge).
 *
 * And what an area's feed follows (framework/feed.ts): each URI in `resourceSubscriptions`
 * that a feed follows for the caller gets `notifications/resources/updated` when there is news
 * there. A URI may carry the cursor the client had read up to, so a reconnect hears at once of
 * what came meanwhile.
 */

/** The most URIs one listen follows, and the most listens one identity holds open at a time. */
export const LISTEN_LIMITS = {
  resourceSubscriptions: FEED_LIMITS.urisPerListen,
  listensPerIdentity: FEED_LIMITS.listensPerIdentity,
} as const;

/** How often an open listen sends a keep-alive and re-checks, whatever NOTIFY said. */
const SWEEP_MS = 20_000;

/** The notification kinds a listen may ask for, and whether this server sends each. */
const HONOURED = { toolsListChanged: true, promptsListChanged: false, resourcesListChanged: false } as const;

export interface ListenFilter {
  toolsListChanged: boolean;
}

interface Listen {
  id: RpcId;
  /** Aborted when the stream ends: stops its feeds' waits. */
  ended: AbortController;
  agentId: string;
  /** The credential the listen was opened with, kept in memory only, to re-check it. */
  bearer: string;
  filter: ListenFilter;
  /** The tool list last announced (as tools/list would answer it). */
  fingerprint: string;
  reply: FastifyReply;
}

export class ListenHub {
  private readonly listens = new Set<Listen>();
  private sweeper: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly identity: IdentityService,
    /** The caller's tool list in a comparable form. */
    private readonly fingerprint: (caller: Caller) => string,
    private readonly feeds: readonly Feed[] = [],
  ) {}

  start(): void {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /**
   * The subset of a requested filter this server honours, as the acknowledgement names it:
   * only the kinds asked for and sent here (no prompts; the resource list never changes).
   */
  static honoured(requested: Record<string, unknown>): Record<string, boolean | string[]> {
    const subset: Record<string, boolean | string[]> = {};
    for (const [kind, sent] of Object.entries(HONOURED))
      if (sent && requested[kind] === true) subset[kind] = true;
    return subset;
  }

  /**
   * Takes over a hijacked reply whose stream headers are sent: acknowledges the listen first
   * (nothing may come before it), then holds it until the client goes or the server stops.
   */
  async open(
    caller: Caller,
    bearer: string,
    id: RpcId,
    requested: Record<string, unknown>,
    uris: readonly string[],
    reply: FastifyReply,
  ): Promise<void> {
    const raw = reply.raw;
    if (this.stopped || raw.destroyed) {
      raw.destroy();
      return;
    }
    const honoured = ListenHub.honoured(requested);
    const followed = await this.followAll(uris, caller);
    // Following took queries: the client may have gone, or the server begun to close, meanwhile.
    if (this.stopped || raw.destroyed) {
      raw.destroy();
      return;
    }
    if (requested.resourceSubscriptions !== undefined) {
      honoured.resourceSubscriptions = followed.map((f) => f.uri);
    }
    const listen: Listen = {
      id,
      ended: new AbortController(),
      agentId: caller.agent.id,
      bearer,
      filter: { toolsListChanged: honoured.toolsListChanged === true },
      fingerprint: this.fingerprint(caller),
      reply,
    };
    this.makeRoom(caller.agent.id);
    this.listens.add(listen);
    raw.on('close', () => {
      this.listens.delete(listen);
      listen.ended.abort();
    });
    this.send(listen, {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: honoured, _meta: { [META.subscriptionId]: id } },
    });
    for (const { uri, follow } of followed) void this.watch(listen, uri, follow);
  }

  /** The URIs some feed follows for this caller, each once, in the order asked. */
  private async followAll(uris: readonly string[], caller: Caller) {
    const followed: Array<{ uri: string; follow: FeedFollow }> = [];
    for (const uri of new Set(uris)) {
      const follow = await followUri(this.feeds, uri, caller);
      if (follow) followed.push({ uri, follow });
    }
    return followed;
  }

  /**
   * An identity holds a bounded number of listens: the oldest ends (with its response, as on
   * shutdown) to make room, since a client that reconnects often opens the new stream before
   * the server has seen the old one drop.
   */
  private makeRoom(agentId: string): void {
    const own = [...this.listens].filter((l) => l.agentId === agentId);
    for (const l of own.slice(0, Math.max(0, own.length - LISTEN_LIMITS.listensPerIdentity + 1))) {
      this.listens.delete(l);
      this.end(l);
    }
  }

  /** One followed URI, for as long as the stream is open (feed-watch.ts). */
  private watch(listen: Listen, uri: string, follow: FeedFollow): Promise<void> {
    return watchFeed({
      follow,
      signal: listen.ended.signal,
      current: () => this.current(listen),
      onNews: () =>
        this.send(listen, {
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri, _meta: { [META.subscriptionId]: listen.id } },
        }),
      log: listen.reply.log,
      sweepMs: SWEEP_MS,
    });
  }

  /** Wakes the listens of an agent whose tools may have changed (or whose credential went). */
  wake(agentId: string): void {
    for (const l of this.listens) if (l.agentId === agentId) void this.check(l);
  }

  /**
   * Ends every listen gracefully: the listen request's own response (a complete result with
   * its subscription id), then the stream. The client reconnects to another replica.
   */
  stop(): void {
    this.stopped = true;
    if (this.sweeper) clearInterval(this.sweeper);
    for (const l of this.listens) this.end(l);
    this.listens.clear();
  }

  /** Ends a listen with its own response (a complete result with its subscription id). */
  private end(l: Listen): void {
    l.ended.abort();
    const raw = l.reply.raw;
    if (raw.writable) {
      this.send(l, {
        jsonrpc: '2.0',
        id: l.id,
        result: { resultType: 'complete', _meta: { [META.subscriptionId]: l.id } },
      });
    }
    raw.end(() => raw.destroy());
    setTimeout(() => raw.destroy(), 500).unref();
  }

  private sweep(): void {
    for (const l of this.listens) {
      // An SSE comment: clients ignore it, proxies see the stream is alive.
      if (l.reply.raw.writable) l.reply.raw.write(':\n\n');
      void this.check(l);
    }
  }

  private async check(listen: Listen): Promise<void> {
    const raw = listen.reply.raw;
    if (raw.destroyed || raw.writableEnded) return;
    let caller: Caller | null;
    try {
      caller = await this.current(listen);
    } catch (err) {
      // The database away, or a fault of ours: the credential is not known to be bad.
      const why = isDatabaseUnavailable(err) ? 'the database is away' : 'unexpected error';
      listen.reply.log.warn(`listen re-check failed (${why}); the sweep retries`);
      return;
    }
    if (!caller) return;
    const now = this.fingerprint(caller);
    if (now === listen.fingerprint) return;
    listen.fingerprint = now;
    if (listen.filter.toolsListChanged) {
      this.send(listen, {
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [META.subscriptionId]: listen.id } },
      });
    }
  }

  /**
   * The caller as its credential stands now; null (and the stream ended) once it no longer
   * authenticates: revoked, expired, or its identity revoked. Throws when that cannot be told.
   */
  private async current(listen: Listen): Promise<Caller | null> {
    const caller = await callerNow(this.identity, listen.bearer);
    if (!caller) {
      this.listens.delete(listen);
      listen.ended.abort();
      listen.reply.raw.destroy();
    }
    return caller;
  }

  private send(listen: Listen, message: unknown): void {
    const raw = listen.reply.raw;
    if (raw.writable) raw.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }
}
