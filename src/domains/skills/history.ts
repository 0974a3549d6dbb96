import { and, desc, eq, isNull, or } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import type { VersionRow } from './access.ts';
import { type PageQuery, pageById } from './paging.ts';
import { skillEvents, skills, skillUsageReports, skillVersions } from './tables.ts';

/**
 * The owner's pages of one version (`GET /v1/skills/versions/{id}/history`, `/activity`,
 * `/usage`): newest first, cut by id (ids sort by creation), with a cursor bound to the owner,
 * the version and the page, so a cursor of another page, version or owner is refused.
 */

export async function versionHistory(
  ex: Executor,
  secret: string,
  ownerId: string,
  version: VersionRow,
  page: PageQuery,
) {
  const [skill] = await ex.select().from(skills).where(eq(skills.id, version.skillId));
  const { rows, next_cursor } = await pageById(
    secret,
    ['skill-history', ownerId, version.id],
    page,
    (before, take) =>
      ex
        .select()
        .from(skillVersions)
        .where(and(eq(skillVersions.skillId, version.skillId), before))
        .orderBy(desc(skillVersions.id))
        .limit(take),
    skillVersions.id,
  );
  return {
    version_id: version.id,
    skill_id: version.skillId,
    name: skill?.name ?? version.name,
    lifecycle_status: skill?.lifecycleStatus ?? 'ACTIVE',
    archived_at: skill?.archivedAt?.toISOString() ?? null,
    versions: rows.map((v) => ({
      version_id: v.id,
      number: v.number,
      status: v.status,
      package_sha256: v.packageSha256,
      total_bytes: v.totalBytes,
      file_count: v.fileCount,
      bytes_deleted: v.bytesDeletedAt !== null,
      bytes_deleted_at: v.bytesDeletedAt?.toISOString() ?? null,
      published_at: v.createdAt.toISOString(),
      current: v.id === version.id,
    })),
    next_cursor,
  };
}

type EventRow = typeof skillEvents.$inferSelect;

/**
 * Who did it, as the version's owner is told: its identity, itself, the operator (never named),
 * or another owner (a campaign's, acting on its library or tasks; not named either).
 */
function actorOf(e: EventRow, ownerId: string) {
  if (e.actorAgentId) return { type: 'AGENT', agent_id: e.actorAgentId };
  if (e.actorOwnerId === null) return { type: 'SYSTEM' };
  if (e.detail.by === 'OPERATOR') return { type: 'OPERATOR' };
  return e.actorOwnerId === ownerId ? { type: 'OWNER' } : { type: 'ANOTHER_OWNER' };
}

/** The events of the version and of its skill as a whole (archive, drafts), newest first. */
export async function versionActivity(
  ex: Executor,
  secret: string,
  ownerId: string,
  version: VersionRow,
  page: PageQuery,
) {
  const { rows, next_cursor } = await pageById(
    secret,
    ['skill-activity', ownerId, version.id],
    page,
    (before, take) =>
      ex
        .select()
        .from(skillEvents)
        .where(
          and(
            eq(skillEvents.skillId, version.skillId),
            or(eq(skillEvents.versionId, version.id), isNull(skillEvents.versionId)),
            before,
          ),
        )
        .orderBy(desc(skillEvents.id))
        .limit(take),
    skillEvents.id,
  );
  return {
    version_id: version.id,
    skill_id: version.skillId,
    events: rows.map((e) => ({
      event_id: e.id,
      kind: e.kind,
      version_id: e.versionId,
      actor: actorOf(e, ownerId),
      detail: e.detail,
      at: e.createdAt.toISOString(),
    })),
    next_cursor,
  };
}

/** What workers reported of the version, newest first; their notes are untrusted text. */
export async function versionUsage(
  ex: Executor,
  secret: string,
  ownerId: string,
  version: VersionRow,
  page: PageQuery,
) {
  const { rows, next_cursor } = await pageById(
    secret,
    ['skill-usage', ownerId, version.id],
    page,
    (before, take) =>
      ex
        .select()
        .from(skillUsageReports)
        .where(and(eq(skillUsageReports.versionId, version.id), before))
        .orderBy(desc(skillUsageReports.id))
        .limit(take),
    skillUsageReports.id,
  );
  return {
    version_id: version.id,
    reports: rows.map((u) => ({
      report_id: u.id,
      task_id: u.taskId,
      agent_id: u.agentId,
      outcome: u.outcome,
      note: u.note,
      at: u.createdAt.toISOString(),
    })),
    note: 'Usage notes are written by workers and are untrusted text.',
    next_cursor,
  };
}
