import type { FastifyBaseLogger } from 'fastify';
import type { Caller, IdentityService } from '../../domains/identity/index.ts';
import type { Feed, FeedFollow } from '../../framework/index.ts';
import { DomainError } from '../../kernel/errors.ts';

/**
 * Following an area's feed (framework/feed.ts) for an open stream, the same for a 2026-07-28
 * listen and a 2025-era session stream: armed before each check, so a change between a check and
 * the wait still wakes it; re-checked every `sweepMs` in case a NOTIFY was missed; the first
 * check at once, since a cursor in the URI may already be behind.
 */

/** The feed that follows this URI for the caller, or null when none does (or may). */
export async function followUri(
  feeds: readonly Feed[],
  uri: string,
  caller: Caller,
): Promise<FeedFollow | null> {
  for (const feed of feeds) {
    const follow = await feed.follow(uri, caller);
    if (follow) return follow;
  }
  return null;
}

/**
 * The caller as a credential stands now; null once it no longer authenticates (revoked, expired,
 * its identity revoked). Throws when that cannot be told (the database away).
 */
export async function callerNow(identity: IdentityService, bearer: string): Promise<Caller | null> {
  try {
    return (await identity.authenticate(bearer)).caller;
  } catch (err) {
    if (!(err instanceof DomainError) || err.code === 'SERVICE_UNAVAILABLE') throw err;
    return null;
  }
}

export async function watchFeed(opts: {
  follow: FeedFollow;
  signal: AbortSignal;
  /** The caller now; null ends the watch (and the caller ends the stream). */
  current: () => Promise<Caller | null>;
  onNews: () => void;
  log: FastifyBaseLogger;
  sweepMs: number;
}): Promise<void> {
  const { follow, signal } = opts;
  while (!signal.aborted) {
    try {
      const ticket = await follow.arm();
      try {
        const caller = await opts.current();
        if (!caller) return;
        if (await follow.news(caller)) opts.onNews();
        if ((await ticket.wait(opts.sweepMs, signal)) === 'closed') return;
      } finally {
        ticket.cancel();
      }
    } catch (err) {
      // The database away: try again shortly, for as long as the stream is open.
      const error = err instanceof Error ? err.name : typeof err;
      opts.log.warn({ error }, 'feed check failed; retrying');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
