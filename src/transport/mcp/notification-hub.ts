import type { FastifyReply } from 'fastify';
import type {
  Caller,
  IdentityService,
  PendingNotification,
  SessionService,
} from '../../domains/identity/index.ts';
import { NOTIFY_CHANNEL } from '../../domains/identity/index.ts';
import type { Feed } from '../../framework/index.ts';
import type { Database } from '../../storage/database.ts';
import { callerNow, followUri, watchFeed } from './feed-watch.ts';

/** How often an open stream re-checks its queue and sends a keep-alive, whatever NOTIFY said. */
const SWEEP_MS = 20_000;

interface Stream {
  caller: Caller;
  sessionId: string;
  reply: FastifyReply;
  /** The credential the stream was opened with, kept in memory only, to re-check it. */
  bearer: string;
  /** The session's resource subscriptions being followed, each stopped by its controller. */
  follows: Map<string, AbortController>;
  /** Syncs of the subscriptions run one after another. */
  syncing: Promise<void>;
}

/** One JSON-RPC notification as an SSE event. */
export function sseEvent(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

export function asJsonRpc(n: PendingNotification) {
  return { jsonrpc: '2.0' as const, method: n.method, params: n.params };
}

/**
 * The standalone notification streams (GET /mcp) this process holds. Queues live in the
 * database; a NOTIFY from any replica wakes the streams of that agent here, and a periodic
 * sweep catches anything a dropped LISTEN connection missed. Every wake and sweep re-checks
 * that the stream's credential and session are still good.
 */
export class NotificationHub {
  private readonly streams = new Set<Stream>();
  private stopListening: (() => Promise<void>) | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly database: Database,
    private readonly sessions: SessionService,
    private readonly identity: IdentityService,
    /** The areas' feeds, for the sessions' resources/subscribe (framework/feed.ts). */
    private readonly feeds: readonly Feed[],
    /** Told of every wake too: the 2026-07-28 listens re-check on the same NOTIFY. */
    private readonly alsoWake: (agentId: string) => void = () => {},
  ) {}

  async start(): Promise<void> {
    this.stopListening = await this.database.listen(NOTIFY_CHANNEL, (agentId) => this.wake(agentId));
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Holds a stream open until the client goes away; delivers what is already queued at once. */
  open(caller: Caller, sessionId: string, reply: FastifyReply, bearer: string): void {
    // A stream that arrives while the server is closing would hold the close open forever.
    // Nor may one whose client already left while it was being authenticated.
    if (this.stopped || reply.raw.destroyed || reply.raw.socket?.destroyed !== false) {
      reply.raw.destroy();
      return;
    }
    const stream: Stream = {
      caller,
      sessionId,
      reply,
      bearer,
      follows: new Map(),
      syncing: Promise.resolve(),
    };
    this.streams.add(stream);
    reply.raw.on('close', () => {
      this.streams.delete(stream);
      for (const follow of stream.follows.values()) follow.abort();
    });
    void this.flush(stream);
    this.sync(stream);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweeper) clearInterval(this.sweeper);
    // Each stream is told why it ends (an SSE comment, and how soon to reconnect: another
    // replica serves it, and nothing queued is lost, queues live in the database), then ended and
    // its socket destroyed: a stream's socket must not outlive the server's close.
    for (const s of this.streams) {
      for (const follow of s.follows.values()) follow.abort();
      const raw = s.reply.raw;
      if (raw.writable)
        raw.write(': closing: this server is shutting down; reconnect to continue\nretry: 1000\n\n');
      raw.end(() => raw.destroy());
      setTimeout(() => raw.destroy(), 500).unref();
    }
    this.streams.clear();
    await this.stopListening?.();
  }

  private wake(agentId: string): void {
    this.alsoWake(agentId);
    for (const s of this.streams) {
      if (s.caller.agent.id !== agentId) continue;
      void this.flush(s);
      // A subscribe or unsubscribe of the session wakes it too: follow what it follows now.
      this.sync(s);
    }
  }

  /** Follows the session's subscriptions as they stand: new ones started, dropped ones stopped. */
  private sync(stream: Stream): void {
    stream.syncing = stream.syncing.then(async () => {
      if (stream.reply.raw.destroyed) return;
      try {
        const uris = new Set(await this.sessions.subscriptions(stream.sessionId));
        for (const [uri, follow] of stream.follows) {
          if (uris.has(uri)) continue;
          follow.abort();
          stream.follows.delete(uri);
        }
        const caller = await callerNow(this.identity, stream.bearer);
        if (!caller) return;
        for (const uri of uris) {
          if (stream.follows.has(uri)) continue;
          const follow = await followUri(this.feeds, uri, caller);
          // The stream may have closed while the feed was asked: nothing to follow for.
          if (stream.reply.raw.destroyed) return;
          if (!follow) continue;
          const controller = new AbortController();
          stream.follows.set(uri, controller);
          void watchFeed({
            follow,
            signal: controller.signal,
            current: () => callerNow(this.identity, stream.bearer),
            onNews: () => {
              const raw = stream.reply.raw;
              if (raw.writable) {
                raw.write(
                  sseEvent({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } }),
                );
              }
            },
            log: stream.reply.log,
            sweepMs: SWEEP_MS,
          });
        }
      } catch (err) {
        // Only the error's kind: a failed query's message repeats its parameters.
        const error = err instanceof Error ? err.name : typeof err;
        stream.reply.log.warn({ error }, 'subscription sync failed; the next wake or sweep retries');
      }
    });
  }

  private sweep(): void {
    for (const s of this.streams) {
      s.reply.raw.write(': keep-alive\n\n');
      void this.flush(s);
      this.sync(s);
    }
  }

  private async flush(stream: Stream): Promise<void> {
    // Take nothing for a stream that is gone: it stays queued for the session's next request.
    if (stream.reply.raw.destroyed || stream.reply.raw.writableEnded) return;
    try {
      // A stream lives no longer than what let it open: revocation, expiry or DELETE ends it.
      if (!(await this.sessions.streamStillAuthorized(stream.caller.credential, stream.sessionId))) {
        this.streams.delete(stream);
        stream.reply.raw.destroy();
        return;
      }
      const pending = await this.sessions.takeNotifications(stream.sessionId);
      for (const n of pending) stream.reply.raw.write(sseEvent(asJsonRpc(n)));
    } catch (err) {
      stream.reply.log.warn({ err }, 'notification delivery failed; the sweep retries');
    }
  }
}
