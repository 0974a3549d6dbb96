import { and, asc, eq, gt } from 'drizzle-orm';
import type { Database } from '../../../storage/database.ts';
import type { MemberRole } from '../core/member.ts';
import { campaignEvents, campaignMembers } from '../tables.ts';

/**
 * Shared reads for woken watchers. When a message lands, every events_watch waiting on that
 * campaign wakes at once; without sharing, each would ask the database the same two questions
 * (am I still a member? what came after my cursor?) hundreds of times in the same millisecond.
 * Concurrent identical questions get one query and share its answer; nothing is kept after the
 * answer arrives, so no reader ever sees a stale one.
 */
export class LedgerFeed {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(private readonly database: Database) {}

  /** The campaign's events after `afterSeq`, oldest first, unfiltered: callers apply visibility. */
  eventsAfter(campaignId: string, afterSeq: number, limit: number) {
    return this.shared(`events:${campaignId}:${afterSeq}:${limit}`, () =>
      this.database.db
        .select()
        .from(campaignEvents)
        .where(and(eq(campaignEvents.campaignId, campaignId), gt(campaignEvents.seq, afterSeq)))
        .orderBy(asc(campaignEvents.seq))
        .limit(limit),
    );
  }

  /** The campaign's active members and their roles now. */
  activeMembers(campaignId: string): Promise<Map<string, MemberRole>> {
    return this.shared(`members:${campaignId}`, async () => {
      const rows = await this.database.db
        .select({ agentId: campaignMembers.agentId, role: campaignMembers.role })
        .from(campaignMembers)
        .where(and(eq(campaignMembers.campaignId, campaignId), eq(campaignMembers.status, 'ACTIVE')));
      return new Map(rows.map((r) => [r.agentId, r.role]));
    });
  }

  private shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key);
    if (running) return running as Promise<T>;
    const started = read().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }
}
