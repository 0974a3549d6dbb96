import { and, desc, eq, inArray, isNull, lt, lte, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { openCursor, signCursor } from '../../kernel/cursor.ts';
import { cutPage } from '../../kernel/paging.ts';
import type { Executor } from '../../storage/database.ts';
import { campaignForSkills } from '../campaigns/index.ts';
import type { PageQuery } from './paging.ts';
import { arenaSkillPackages, campaignSkills, skillGrants, skillVersions, taskSkills } from './tables.ts';

/**
 * `GET /v1/skills/distribution-consents` (docs/skills.md): every live place the owner's versions
 * are distributed beyond its own account, i.e. what the owner has consented to and can withdraw:
 * an ACTIVE grant (to an identity), a PROPOSED or ACCEPTED campaign library entry, a task
 * attachment not yet detached, a live Arena package (to a challenge version). One list, newest
 * first (by `since`, then kind, then id), each with how to withdraw it. Archived and blocked
 * versions are listed too: their places still stand.
 *
 * A library entry or an attachment in another owner's campaign is that campaign's to remove (its
 * owner or coordinators; the library and attachment routes decide): the owner's own withdrawal
 * there is blocking the version, which stops its delivery everywhere. `withdraw.yours` says which.
 */

type Kind = 'GRANT' | 'CAMPAIGN_LIBRARY' | 'TASK_ATTACHMENT' | 'ARENA_PACKAGE';
/** Order of the kinds among rows of the same instant (higher first); the cursor carries it. */
const RANK: Record<Kind, number> = { GRANT: 2, CAMPAIGN_LIBRARY: 1, TASK_ATTACHMENT: 0, ARENA_PACKAGE: -1 };

interface Position {
  since: string;
  rank: number;
  id: string;
}

interface Consent {
  kind: Kind;
  id: string;
  since: Date;
  version: { id: string; number: number; name: string; status: string };
  where: Record<string, string | null>;
  withdraw: { method: 'POST' | 'DELETE'; path: string; body: Record<string, unknown> };
  campaignId: string | null;
}

/** The rows of one kind after the cursor's position, in the list's order. */
function after(kind: Kind, at: Position | undefined, since: PgColumn, id: PgColumn): SQL | undefined {
  if (!at) return undefined;
  const when = new Date(at.since);
  const rank = RANK[kind];
  if (rank < at.rank) return lte(since, when);
  if (rank > at.rank) return lt(since, when);
  return or(lt(since, when), and(eq(since, when), lt(id, at.id)));
}

const versionCols = {
  versionId: skillVersions.id,
  number: skillVersions.number,
  name: skillVersions.name,
  status: skillVersions.status,
};
const versionOf = (r: { versionId: string; number: number; name: string; status: string }) => ({
  id: r.versionId,
  number: r.number,
  name: r.name,
  status: r.status,
});

export async function listConsents(ex: Executor, secret: string, ownerId: string, page: PageQuery) {
  const binding = JSON.stringify(['skill-consents', ownerId]);
  const at = page.cursor
    ? openCursor<Position & Record<string, unknown>>(secret, binding, page.cursor)
    : undefined;
  const take = page.limit + 1;
  const mine = eq(skillVersions.ownerId, ownerId);
  const [grants, entries, bindings, packages] = await Promise.all([
    ex
      .select({
        ...versionCols,
        id: skillGrants.id,
        since: skillGrants.createdAt,
        grantee: skillGrants.granteeAgentId,
      })
      .from(skillGrants)
      .innerJoin(skillVersions, eq(skillVersions.id, skillGrants.versionId))
      .where(
        and(mine, isNull(skillGrants.revokedAt), after('GRANT', at, skillGrants.createdAt, skillGrants.id)),
      )
      .orderBy(desc(skillGrants.createdAt), desc(skillGrants.id))
      .limit(take),
    ex
      .select({
        ...versionCols,
        id: campaignSkills.id,
        since: campaignSkills.createdAt,
        campaignId: campaignSkills.campaignId,
        state: campaignSkills.state,
      })
      .from(campaignSkills)
      .innerJoin(skillVersions, eq(skillVersions.id, campaignSkills.versionId))
      .where(
        and(
          mine,
          inArray(campaignSkills.state, ['PROPOSED', 'ACCEPTED']),
          after('CAMPAIGN_LIBRARY', at, campaignSkills.createdAt, campaignSkills.id),
        ),
      )
      .orderBy(desc(campaignSkills.createdAt), desc(campaignSkills.id))
      .limit(take),
    ex
      .select({
        ...versionCols,
        id: taskSkills.id,
        since: taskSkills.createdAt,
        taskId: taskSkills.taskId,
        campaignId: taskSkills.campaignId,
        delivery: taskSkills.delivery,
      })
      .from(taskSkills)
      .innerJoin(skillVersions, eq(skillVersions.id, taskSkills.versionId))
      .where(
        and(
          mine,
          isNull(taskSkills.detachedAt),
          after('TASK_ATTACHMENT', at, taskSkills.createdAt, taskSkills.id),
        ),
      )
      .orderBy(desc(taskSkills.createdAt), desc(taskSkills.id))
      .limit(take),
    ex
      .select({
        ...versionCols,
        id: arenaSkillPackages.id,
        since: arenaSkillPackages.createdAt,
        challengeId: arenaSkillPackages.challengeId,
        challengeVersion: arenaSkillPackages.challengeVersion,
      })
      .from(arenaSkillPackages)
      .innerJoin(skillVersions, eq(skillVersions.id, arenaSkillPackages.versionId))
      .where(
        and(
          mine,
          isNull(arenaSkillPackages.withdrawnAt),
          after('ARENA_PACKAGE', at, arenaSkillPackages.createdAt, arenaSkillPackages.id),
        ),
      )
      .orderBy(desc(arenaSkillPackages.createdAt), desc(arenaSkillPackages.id))
      .limit(take),
  ]);
  const all: Consent[] = [
    ...grants.map((g) => ({
      kind: 'GRANT' as const,
      id: g.id,
      since: g.since,
      version: versionOf(g),
      where: { grantee_id: g.grantee },
      withdraw: { method: 'POST' as const, path: `/v1/skill-grants/${g.id}/revoke`, body: {} },
      campaignId: null,
    })),
    ...entries.map((e) => ({
      kind: 'CAMPAIGN_LIBRARY' as const,
      id: e.id,
      since: e.since,
      version: versionOf(e),
      where: { campaign_id: e.campaignId, state: e.state },
      withdraw: { method: 'DELETE' as const, path: `/v1/campaigns/${e.campaignId}/skills/${e.id}`, body: {} },
      campaignId: e.campaignId,
    })),
    ...bindings.map((b) => ({
      kind: 'TASK_ATTACHMENT' as const,
      id: b.id,
      since: b.since,
      version: versionOf(b),
      where: { task_id: b.taskId, campaign_id: b.campaignId, delivery: b.delivery },
      withdraw: { method: 'DELETE' as const, path: `/v1/tasks/${b.taskId}/skills/${b.id}`, body: {} },
      campaignId: b.campaignId,
    })),
    ...packages.map((p) => ({
      kind: 'ARENA_PACKAGE' as const,
      id: p.id,
      since: p.since,
      version: versionOf(p),
      where: { challenge_id: p.challengeId, challenge_version: String(p.challengeVersion) },
      withdraw: { method: 'DELETE' as const, path: `/v1/arena/skill-packages/${p.id}`, body: {} },
      campaignId: null,
    })),
  ];
  all.sort(
    (x, y) =>
      y.since.getTime() - x.since.getTime() ||
      RANK[y.kind] - RANK[x.kind] ||
      (x.id < y.id ? 1 : x.id > y.id ? -1 : 0),
  );
  // Each kind read one row past the page, so the merged list still tells whether more follow.
  const { rows: shown, next } = cutPage(all, page.limit, (last) =>
    signCursor(secret, binding, { since: last.since.toISOString(), rank: RANK[last.kind], id: last.id }),
  );
  const campaignOwners = new Map<string, string | null>();
  for (const id of new Set(shown.map((c) => c.campaignId).filter((c) => c !== null))) {
    campaignOwners.set(id, (await campaignForSkills(ex, id))?.ownerId ?? null);
  }
  const yours = (c: Consent) => c.campaignId === null || campaignOwners.get(c.campaignId) === ownerId;
  return {
    consents: shown.map((c) => ({
      kind: c.kind,
      consent_id: c.id,
      version_id: c.version.id,
      version_number: c.version.number,
      name: c.version.name,
      version_status: c.version.status,
      where: c.where,
      since: c.since.toISOString(),
      withdraw: yours(c)
        ? { ...c.withdraw, yours: true }
        : {
            ...c.withdraw,
            yours: false,
            note: 'This campaign is another owner’s: its owner or coordinators remove this. To stop the delivery yourself, block the version.',
            instead: {
              method: 'POST',
              path: `/v1/skills/versions/${c.version.id}/block`,
              body: { reason: '…' },
            },
          },
    })),
    next_cursor: next,
  };
}
