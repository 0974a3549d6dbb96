import { and, desc, eq, ilike, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { cutPage } from '../../../kernel/paging.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import { containsPattern } from '../../../storage/like.ts';
import type { Actor } from '../access.ts';
import {
  decideEntry,
  type EntryRow,
  presentEntry,
  proposeEntry,
  removeEntry,
  updateEntry,
} from '../library.ts';
import { presentVersion } from '../present.ts';
import { campaignStanding, type Standing } from '../standing.ts';
import { campaignSkills, skills, skillVersions } from '../tables.ts';

/**
 * A campaign's skill library for its owner (`/v1/campaigns/{id}/skills…`): the owner sees every
 * entry in every state, proposes its own account's versions (accepted at once: the owner decides)
 * and decides, edits and removes entries. Another owner's campaign is NOT_FOUND, as a missing one.
 */

export interface LibraryFilters {
  q?: string | undefined;
  status?: 'AVAILABLE' | 'BLOCKED' | undefined;
  campaignState?: EntryRow['state'] | undefined;
  authorId?: string | undefined;
  compatibility?: string | undefined;
  tags?: string[] | undefined;
  limit: number;
  cursor?: string | undefined;
}

export class SkillLibraryOwnerService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly secret: string,
    private readonly requireOn: () => void,
  ) {}

  private actor(ownerId: string): Actor {
    return { ownerId, agentId: null };
  }

  /** The library's entries with their versions, newest first, filtered in SQL before the page is cut. */
  async list(ownerId: string, campaignId: string, f: LibraryFilters) {
    this.requireOn();
    const db = this.database.db;
    await campaignStanding(db, this.actor(ownerId), campaignId);
    const where: SQL[] = [eq(campaignSkills.campaignId, campaignId)];
    if (f.q) {
      const match = or(
        ilike(skillVersions.name, containsPattern(f.q)),
        ilike(skillVersions.description, containsPattern(f.q)),
      );
      if (match) where.push(match);
    }
    if (f.status) where.push(eq(skillVersions.status, f.status));
    if (f.campaignState) where.push(eq(campaignSkills.state, f.campaignState));
    if (f.authorId) where.push(eq(skillVersions.authorAgentId, f.authorId));
    if (f.compatibility) where.push(ilike(skillVersions.compatibility, containsPattern(f.compatibility)));
    if (f.tags && f.tags.length > 0)
      where.push(sql`${skillVersions.tags} @> ${JSON.stringify(f.tags)}::jsonb`);
    const binding = JSON.stringify([
      'campaign-skills',
      ownerId,
      campaignId,
      f.q ?? null,
      f.status ?? null,
      f.campaignState ?? null,
      f.authorId ?? null,
      f.compatibility ?? null,
      f.tags ?? null,
    ]);
    if (f.cursor)
      where.push(
        lt(campaignSkills.id, String(openCursor<{ id: string }>(this.secret, binding, f.cursor).id)),
      );
    const rows = await db
      .select({ entry: campaignSkills, version: skillVersions, lifecycleStatus: skills.lifecycleStatus })
      .from(campaignSkills)
      .innerJoin(skillVersions, eq(skillVersions.id, campaignSkills.versionId))
      .innerJoin(skills, eq(skills.id, skillVersions.skillId))
      .where(and(...where))
      .orderBy(desc(campaignSkills.id))
      .limit(f.limit + 1);
    const page = cutPage(rows, f.limit, (last) => signCursor(this.secret, binding, { id: last.entry.id }));
    return {
      campaign_id: campaignId,
      entries: page.rows.map((r) => ({
        ...presentEntry(r.entry),
        version: presentVersion(r.version, { lifecycleStatus: r.lifecycleStatus }),
      })),
      next_cursor: page.next,
    };
  }

  async propose(
    ownerId: string,
    campaignId: string,
    body: { version_id: string; note?: string | undefined },
  ) {
    return this.change(ownerId, campaignId, (tx, s, now) =>
      proposeEntry(tx, s, { versionId: body.version_id, note: body.note }, now),
    );
  }

  async decide(
    ownerId: string,
    campaignId: string,
    entryId: string,
    body: { decision: 'ACCEPT' | 'DECLINE'; reason?: string | undefined },
  ) {
    return this.change(ownerId, campaignId, (tx, s, now) => decideEntry(tx, s, { entryId, ...body }, now));
  }

  async update(ownerId: string, campaignId: string, entryId: string, body: { note: string }) {
    return this.change(ownerId, campaignId, (tx, s, now) =>
      updateEntry(tx, s, { entryId, note: body.note }, now),
    );
  }

  async remove(ownerId: string, campaignId: string, entryId: string, body: { reason?: string | undefined }) {
    return this.change(ownerId, campaignId, (tx, s, now) =>
      removeEntry(tx, s, { entryId, reason: body.reason }, now),
    );
  }

  private async change(
    ownerId: string,
    campaignId: string,
    act: (tx: Executor, s: Standing, now: Date) => Promise<EntryRow>,
  ) {
    this.requireOn();
    const now = this.clock.now();
    const entry = await this.database.transaction(async (tx) => {
      const s = await campaignStanding(tx, this.actor(ownerId), campaignId, { forChange: true });
      return act(tx, s, now);
    });
    return presentEntry(entry);
  }
}
