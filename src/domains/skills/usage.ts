import { and, asc, desc, eq, inArray, isNull, type SQL } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Executor } from '../../storage/database.ts';
import { leaseOfTask, taskForSkills } from '../campaigns/index.ts';
import type { Actor } from './access.ts';
import { liveBindings, presentBinding } from './attachments.ts';
import { gapIn } from './completion-gate.ts';
import { contextString } from './context.ts';
import { leaseNotOfTask } from './errors.ts';
import { recordSkillEvent } from './events.ts';
import { taskStandingOf } from './standing.ts';
import {
  skillDeliveries,
  skillUsageReports,
  skillVersionFiles,
  skillVersions,
  taskSkills,
} from './tables.ts';

/**
 * Usage reports (SPEC Skills): the worker holding a task's lease says what came of each attached
 * skill (APPLIED, NOT_NEEDED, INCOMPATIBLE, DECLINED); the campaign's owner reads them beside
 * what the server delivered under a lease.
 */

export type Outcome = (typeof skillUsageReports.$inferSelect)['outcome'];

/** Reports shown per task page: the newest. */
const REPORTS_SHOWN = 100;

export async function reportUsage(
  ex: Executor,
  actor: Actor,
  input: { taskId: string; versionId: string; outcome: Outcome; note?: string | undefined },
  now: Date,
) {
  // The lease is what gives the right to report: a member's, or an open-pickup taker's (no
  // membership). Anyone else learns from this answer only that it holds no lease of the task.
  const task = await taskForSkills(ex, input.taskId, now);
  const lease = task?.lease;
  if (!task || !lease || actor.agentId === null || lease.agentId !== actor.agentId) {
    throw new DomainError(
      'LEASE_REQUIRED',
      `Only the identity holding task ${input.taskId}’s current lease reports how its skills were used.`,
      { task_id: input.taskId },
      { next: 'Claim the task with task_claim first, if it is open to you.' },
    );
  }
  const [binding] = await ex
    .select({ id: taskSkills.id })
    .from(taskSkills)
    .where(
      and(
        eq(taskSkills.taskId, task.id),
        eq(taskSkills.versionId, input.versionId),
        isNull(taskSkills.detachedAt),
      ),
    );
  if (!binding) {
    const context = contextString({ scope: 'TASK', task_id: task.id });
    throw new DomainError(
      'NOT_FOUND',
      `Skill version ${input.versionId} is not attached to task ${task.id}.`,
      { task_id: task.id, version_id: input.versionId },
      {
        next: `List the task's skills with skill_list(context: ${JSON.stringify(context)}).`,
        alternatives: [
          { tool: 'skill_list', action: 'List the task’s attached skills.', arguments: { context } },
        ],
      },
    );
  }
  const [report] = await ex
    .insert(skillUsageReports)
    .values({
      id: newId('sur', now),
      taskId: task.id,
      versionId: input.versionId,
      agentId: actor.agentId,
      leaseId: lease.id,
      outcome: input.outcome,
      note: input.note ?? null,
      createdAt: now,
    })
    .returning();
  if (!report) throw new Error('usage report insert returned nothing');
  const [version] = await ex
    .select({ skillId: skillVersions.skillId })
    .from(skillVersions)
    .where(eq(skillVersions.id, input.versionId));
  await recordSkillEvent(
    ex,
    {
      skillId: version?.skillId ?? '',
      versionId: input.versionId,
      kind: 'USAGE_REPORTED',
      actor,
      detail: {
        report_id: report.id,
        task_id: task.id,
        lease_id: lease.id,
        binding_id: binding.id,
        outcome: input.outcome,
      },
    },
    now,
  );
  return presentReport(report);
}

export function presentReport(r: typeof skillUsageReports.$inferSelect) {
  return {
    report_id: r.id,
    task_id: r.taskId,
    version_id: r.versionId,
    agent_id: r.agentId,
    lease_id: r.leaseId,
    outcome: r.outcome,
    note: r.note,
    reported_at: r.createdAt.toISOString(),
  };
}

/**
 * The task's live attachments, with, for a lease (the one named, else the live one), whether the
 * server delivered each SKILL.md in full under it; and the newest usage reports (of that lease
 * when one was named; a lease of another task is NOT_FOUND).
 */
export async function taskUsage(
  ex: Executor,
  ownerId: string,
  taskId: string,
  leaseId: string | undefined,
  now: Date,
) {
  const s = await taskStandingOf(ex, { ownerId, agentId: null }, taskId, now);
  if (leaseId !== undefined && !(await leaseOfTask(ex, taskId, leaseId)))
    throw leaseNotOfTask(taskId, leaseId);
  const lease = leaseId ?? s.task.lease?.id ?? null;
  const bindings = await liveBindings(ex, taskId);
  const versionIds = bindings.map((b) => b.version.id);
  const sizes = new Map<string, number>();
  const ranges = new Map<string, Array<{ start: number; end: number }>>();
  if (versionIds.length > 0) {
    const files = await ex
      .select({ versionId: skillVersionFiles.versionId, size: skillVersionFiles.size })
      .from(skillVersionFiles)
      .where(and(inArray(skillVersionFiles.versionId, versionIds), eq(skillVersionFiles.path, 'SKILL.md')));
    for (const f of files) sizes.set(f.versionId, f.size);
    if (lease) {
      const delivered = await ex
        .select({
          versionId: skillDeliveries.versionId,
          start: skillDeliveries.byteStart,
          end: skillDeliveries.byteEnd,
        })
        .from(skillDeliveries)
        .where(
          and(
            eq(skillDeliveries.leaseId, lease),
            inArray(skillDeliveries.versionId, versionIds),
            eq(skillDeliveries.path, 'SKILL.md'),
          ),
        )
        .orderBy(asc(skillDeliveries.byteStart));
      for (const d of delivered) ranges.set(d.versionId, [...(ranges.get(d.versionId) ?? []), d]);
    }
  }
  const where: SQL[] = [eq(skillUsageReports.taskId, taskId)];
  if (leaseId) where.push(eq(skillUsageReports.leaseId, leaseId));
  const reports = await ex
    .select()
    .from(skillUsageReports)
    .where(and(...where))
    .orderBy(desc(skillUsageReports.id))
    .limit(REPORTS_SHOWN);
  return {
    task_id: taskId,
    lease_id: lease,
    live_lease_id: s.task.lease?.id ?? null,
    skills: bindings.map(({ binding, version }) => {
      const size = sizes.get(version.id) ?? 0;
      const got = ranges.get(version.id) ?? [];
      return {
        ...presentBinding(binding, version),
        skill_md: lease
          ? {
              total_bytes: size,
              fully_delivered: gapIn(got, size) === null,
              first_missing_byte: gapIn(got, size),
            }
          : null,
      };
    }),
    reports: reports.map(presentReport),
    reports_shown_max: REPORTS_SHOWN,
  };
}
