import { and, asc, count, eq, isNull } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Executor } from '../../storage/database.ts';
import { lockedOne } from '../../storage/locked.ts';
import { recordCampaignSkillEvent } from '../campaigns/index.ts';
import type { VersionRow } from './access.ts';
import { recordSkillEvent } from './events.ts';
import { attachableVersion, ledgerActor, type TaskStanding } from './standing.ts';
import { skillVersions, taskSkills } from './tables.ts';

/**
 * Task attachments (docs/skills.md): a version bound to a task with a purpose, an order and a
 * delivery (RECOMMENDED, REQUIRED, READ_BEFORE_COMPLETION). Attached by the task's creator or a
 * coordinator (or the campaign's owner), from the campaign's accepted library or the attacher's
 * own account. A change takes effect at once: every TASK read checks the live binding again.
 */

export type BindingRow = typeof taskSkills.$inferSelect;
export type Delivery = BindingRow['delivery'];

/** Live attachments per task: the worker reads them all, and an export carries them in one zip. */
export const MAX_LIVE_BINDINGS = 20;

async function bindingForChange(ex: Executor, taskId: string, bindingId: string): Promise<BindingRow> {
  return lockedOne(
    ex
      .select()
      .from(taskSkills)
      .where(and(eq(taskSkills.id, bindingId), eq(taskSkills.taskId, taskId))),
    () =>
      new DomainError(
        'NOT_FOUND',
        `No skill attachment ${bindingId} on task ${taskId}.`,
        { task_id: taskId, binding_id: bindingId },
        {
          next: 'Binding ids come from task_skill_attach and the TASK_SKILL_ATTACHED events of the campaign’s ledger.',
        },
      ),
  );
}

const KINDS = {
  ATTACHED: 'TASK_ATTACHED',
  UPDATED: 'TASK_ATTACHMENT_UPDATED',
  DETACHED: 'TASK_DETACHED',
} as const;

async function recordChange(
  ex: Executor,
  s: TaskStanding,
  change: keyof typeof KINDS,
  b: BindingRow,
  version: Pick<VersionRow, 'id' | 'skillId' | 'name'>,
  extra: Record<string, unknown>,
  now: Date,
): Promise<void> {
  const payload = {
    binding_id: b.id,
    version_id: b.versionId,
    name: version.name,
    purpose: b.purpose,
    order: b.position,
    delivery: b.delivery,
    ...extra,
  };
  await recordSkillEvent(
    ex,
    {
      skillId: version.skillId,
      versionId: version.id,
      kind: KINDS[change],
      actor: s.actor,
      detail: { task_id: s.task.id, ...payload },
    },
    now,
  );
  await recordCampaignSkillEvent(
    ex,
    s.task.campaignId,
    { kind: `TASK_SKILL_${change}`, actor: ledgerActor(s), taskId: s.task.id, payload },
    now,
  );
}

export async function attachVersion(
  ex: Executor,
  s: TaskStanding,
  input: { versionId: string; purpose: string; order: number; delivery: Delivery },
  now: Date,
): Promise<{ binding: BindingRow; version: VersionRow }> {
  const version = await attachableVersion(ex, s, input.versionId);
  const [live] = await ex
    .select({ n: count() })
    .from(taskSkills)
    .where(and(eq(taskSkills.taskId, s.task.id), isNull(taskSkills.detachedAt)));
  if ((live?.n ?? 0) >= MAX_LIVE_BINDINGS) {
    throw new DomainError(
      'CONFLICT',
      `Task ${s.task.id} already has ${MAX_LIVE_BINDINGS} skills attached, the most a task takes; detach one first.`,
      { task_id: s.task.id, max_live_bindings: MAX_LIVE_BINDINGS },
    );
  }
  const [binding] = await ex
    .insert(taskSkills)
    .values({
      id: newId('tsk', now),
      taskId: s.task.id,
      campaignId: s.task.campaignId,
      versionId: version.id,
      purpose: input.purpose,
      position: input.order,
      delivery: input.delivery,
      attachedBy: s.actor.agentId ?? s.actor.ownerId,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!binding) {
    const [existing] = await ex
      .select({ id: taskSkills.id })
      .from(taskSkills)
      .where(
        and(
          eq(taskSkills.taskId, s.task.id),
          eq(taskSkills.versionId, version.id),
          isNull(taskSkills.detachedAt),
        ),
      );
    throw new DomainError(
      'CONFLICT',
      `Skill version ${version.id} is already attached to task ${s.task.id} as ${existing?.id ?? 'another binding'}.`,
      { task_id: s.task.id, version_id: version.id, binding_id: existing?.id ?? null },
      { next: 'Change that binding with task_skill_update (purpose, order, delivery) instead.' },
    );
  }
  await recordChange(ex, s, 'ATTACHED', binding, version, {}, now);
  return { binding, version };
}

export async function updateBinding(
  ex: Executor,
  s: TaskStanding,
  input: {
    bindingId: string;
    purpose?: string | undefined;
    order?: number | undefined;
    delivery?: Delivery | undefined;
  },
  now: Date,
): Promise<BindingRow> {
  if (input.purpose === undefined && input.order === undefined && input.delivery === undefined) {
    throw new DomainError('VALIDATION_FAILED', 'Send at least one of purpose, order or delivery.', {
      detail: [{ loc: ['purpose'], msg: 'send at least one of purpose, order or delivery', type: 'missing' }],
    });
  }
  const binding = await bindingForChange(ex, s.task.id, input.bindingId);
  if (binding.detachedAt) {
    throw new DomainError(
      'CONFLICT',
      `Skill attachment ${binding.id} was detached; attach the version again instead.`,
      {
        binding_id: binding.id,
        detached_at: binding.detachedAt.toISOString(),
      },
    );
  }
  const [updated] = await ex
    .update(taskSkills)
    .set({
      ...(input.purpose !== undefined ? { purpose: input.purpose } : {}),
      ...(input.order !== undefined ? { position: input.order } : {}),
      ...(input.delivery !== undefined ? { delivery: input.delivery } : {}),
      updatedAt: now,
    })
    .where(eq(taskSkills.id, binding.id))
    .returning();
  if (!updated) throw new Error('binding update returned nothing');
  const version = await bindingVersion(ex, updated);
  await recordChange(ex, s, 'UPDATED', updated, version, { previous_delivery: binding.delivery }, now);
  return updated;
}

/** Ends a binding at once; detaching a detached binding answers it as it is. */
export async function detachBinding(
  ex: Executor,
  s: TaskStanding,
  input: { bindingId: string; reason?: string | undefined },
  now: Date,
): Promise<BindingRow> {
  const binding = await bindingForChange(ex, s.task.id, input.bindingId);
  if (binding.detachedAt) return binding;
  const [detached] = await ex
    .update(taskSkills)
    .set({ detachedAt: now, updatedAt: now })
    .where(eq(taskSkills.id, binding.id))
    .returning();
  if (!detached) throw new Error('binding update returned nothing');
  await recordChange(
    ex,
    s,
    'DETACHED',
    detached,
    await bindingVersion(ex, detached),
    { reason: input.reason ?? null },
    now,
  );
  return detached;
}

async function bindingVersion(ex: Executor, b: BindingRow) {
  const [v] = await ex
    .select({ id: skillVersions.id, skillId: skillVersions.skillId, name: skillVersions.name })
    .from(skillVersions)
    .where(eq(skillVersions.id, b.versionId));
  if (!v) throw new Error(`version ${b.versionId} of binding ${b.id} is missing`);
  return v;
}

/** The task's live bindings with their versions, in the order the worker should read them. */
export async function liveBindings(ex: Executor, taskId: string) {
  return ex
    .select({ binding: taskSkills, version: skillVersions })
    .from(taskSkills)
    .innerJoin(skillVersions, eq(skillVersions.id, taskSkills.versionId))
    .where(and(eq(taskSkills.taskId, taskId), isNull(taskSkills.detachedAt)))
    .orderBy(asc(taskSkills.position), asc(taskSkills.id));
}

export function presentBinding(b: BindingRow, version?: Pick<VersionRow, 'name' | 'number' | 'status'>) {
  return {
    binding_id: b.id,
    task_id: b.taskId,
    version_id: b.versionId,
    ...(version ? { name: version.name, number: version.number, version_status: version.status } : {}),
    purpose: b.purpose,
    order: b.position,
    delivery: b.delivery,
    attached_by: b.attachedBy.startsWith('agt_') ? b.attachedBy : 'OWNER',
    status: b.detachedAt ? 'DETACHED' : 'ATTACHED',
    attached_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
    detached_at: b.detachedAt?.toISOString() ?? null,
  };
}
