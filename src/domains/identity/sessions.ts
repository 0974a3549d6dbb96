import type { Clock } from '../../kernel/clock.ts';
import { DomainError } from '../../kernel/errors.ts';
import { newOpaqueId } from '../../kernel/ids.ts';
import type { Database } from '../../storage/database.ts';
import { streamStillAuthorized } from './agent-repo.ts';
import { type PendingNotification, takeNotifications, wakeAgent } from './notifications.ts';
import * as repo from './session-repo.ts';
import type { Caller } from './types.ts';

/**
 * MCP sessions, kept in the database so that any server process can serve any request
 * of any session. A session belongs to the identity that opened it; authentication checks it
 * (IdentityService.authenticate), so a request costs one query.
 */
export class SessionService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  async open(
    agentId: string,
    protocolVersion: string,
    client: { name?: string | undefined; version?: string | undefined },
  ): Promise<string> {
    const id = `ses_${newOpaqueId()}`;
    await repo.insertSession(this.database.db, {
      id,
      agentId,
      protocolVersion,
      clientName: client.name?.slice(0, 200) ?? null,
      clientVersion: client.version?.slice(0, 100) ?? null,
      now: this.clock.now(),
    });
    return id;
  }

  async end(id: string, agentId: string): Promise<void> {
    const ended = await repo.endSession(this.database.db, id, agentId, this.clock.now());
    if (!ended)
      throw new DomainError('SESSION_NOT_FOUND', 'This MCP session is unknown or has already ended.');
    // Its notification stream, on whichever replica holds it, closes at once.
    await wakeAgent(this.database.db, agentId);
  }

  /** The client name and version a session gave at initialize; null for an unknown session. */
  async clientOf(
    id: string,
    agentId: string,
  ): Promise<{ name: string | null; version: string | null } | null> {
    return repo.findSessionClient(this.database.db, id, agentId);
  }

  /** Whether a stream opened with this credential on this session may go on. */
  async streamStillAuthorized(credential: Caller['credential'], sessionId: string): Promise<boolean> {
    return streamStillAuthorized(this.database.db, credential, sessionId, this.clock.now());
  }

  /** Takes the notifications queued for a session: each is handed out exactly once. */
  async takeNotifications(sessionId: string): Promise<PendingNotification[]> {
    return takeNotifications(this.database.db, sessionId, this.clock.now());
  }

  /** The resources a session follows, for its notification stream. */
  async subscriptions(sessionId: string): Promise<string[]> {
    return repo.subscriptionsOf(this.database.db, sessionId);
  }

  /**
   * Follows a resource in an open session of the agent (resources/subscribe), at most `max`
   * per session; wakes the session's stream, on whichever replica holds it, to start following.
   */
  async subscribe(sessionId: string, agentId: string, uri: string, max: number) {
    return this.database.transaction(async (tx) => {
      const outcome = await repo.addSubscription(tx, sessionId, agentId, uri, max, this.clock.now());
      if (outcome === 'added') await wakeAgent(tx, agentId);
      return outcome;
    });
  }

  /** Stops following a resource (resources/unsubscribe); following nothing is no error. */
  async unsubscribe(sessionId: string, agentId: string, uri: string): Promise<void> {
    await this.database.transaction(async (tx) => {
      await repo.removeSubscription(tx, sessionId, uri);
      await wakeAgent(tx, agentId);
    });
  }

  async countActiveSince(since: Date): Promise<number> {
    return repo.countRecentSessions(this.database.db, since);
  }
}
