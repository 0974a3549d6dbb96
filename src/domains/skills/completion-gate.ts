import { and, asc, eq, isNull } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import type { CompletionGate } from '../campaigns/types.ts';
import { contextString } from './context.ts';
import { skillDeliveries, skillVersionFiles, skillVersions, taskSkills } from './tables.ts';

/**
 * READ_BEFORE_COMPLETION (SPEC Skills): task_complete is refused until the server has delivered
 * every byte of each such skill's SKILL.md to the worker under the current lease. Deliveries are
 * byte ranges (reads.ts); they need not come in order, only cover the file together. A version
 * that can no longer be delivered (blocked, bytes deleted) cannot be required.
 */
export const skillsCompletionGate: CompletionGate = async (ex, { taskId, leaseId, agentId }) => {
  const required = await ex
    .select({ versionId: taskSkills.versionId, name: skillVersions.name, size: skillVersionFiles.size })
    .from(taskSkills)
    .innerJoin(skillVersions, eq(skillVersions.id, taskSkills.versionId))
    .innerJoin(
      skillVersionFiles,
      and(eq(skillVersionFiles.versionId, taskSkills.versionId), eq(skillVersionFiles.path, 'SKILL.md')),
    )
    .where(
      and(
        eq(taskSkills.taskId, taskId),
        isNull(taskSkills.detachedAt),
        eq(taskSkills.delivery, 'READ_BEFORE_COMPLETION'),
        eq(skillVersions.status, 'AVAILABLE'),
        isNull(skillVersions.bytesDeletedAt),
      ),
    )
    .orderBy(asc(taskSkills.position));
  const missing = [];
  for (const r of required) {
    const ranges = await ex
      .select({ start: skillDeliveries.byteStart, end: skillDeliveries.byteEnd })
      .from(skillDeliveries)
      .where(
        and(
          eq(skillDeliveries.leaseId, leaseId),
          eq(skillDeliveries.agentId, agentId),
          eq(skillDeliveries.versionId, r.versionId),
          eq(skillDeliveries.path, 'SKILL.md'),
        ),
      )
      .orderBy(asc(skillDeliveries.byteStart));
    const firstGap = gapIn(ranges, r.size);
    if (firstGap !== null) {
      missing.push({
        version_id: r.versionId,
        name: r.name,
        path: 'SKILL.md',
        total_bytes: r.size,
        first_missing_byte: firstGap,
      });
    }
  }
  if (missing.length === 0) return;
  const context = contextString({ scope: 'TASK', task_id: taskId });
  throw new DomainError(
    'SKILL_READ_REQUIRED',
    `Read first, then complete: the SKILL.md of ${missing.map((m) => `${m.name} (${m.version_id})`).join(', ')} has not been delivered to you in full under this lease. Nothing was submitted.`,
    { task_id: taskId, lease_id: leaseId, missing },
    {
      next: `Call skill_file_get(version_id, path: "SKILL.md", context: ${JSON.stringify(context)}) for each version in details.missing, following range.next_offset until it is null, then task_complete again.`,
      alternatives: missing.map((m) => ({
        tool: 'skill_file_get',
        action: `Read SKILL.md of ${m.version_id} to the end.`,
        arguments: { version_id: m.version_id, path: 'SKILL.md', context },
      })),
    },
  );
};

/** The first byte of [0, size) no range covers, or null when they cover it all. */
export function gapIn(ranges: ReadonlyArray<{ start: number; end: number }>, size: number): number | null {
  let covered = 0;
  for (const r of [...ranges].sort((a, b) => a.start - b.start)) {
    if (r.start > covered) return covered;
    covered = Math.max(covered, r.end);
    if (covered >= size) return null;
  }
  return covered >= size ? null : covered;
}
