import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Database } from '../../../storage/database.ts';
import { leaseOfTask, taskForSkills } from '../../campaigns/index.ts';
import type { Actor } from '../access.ts';
import {
  attachVersion,
  type Delivery,
  detachBinding,
  liveBindings,
  presentBinding,
  updateBinding,
} from '../attachments.ts';
import { leaseNotOfTask } from '../errors.ts';
import { buildMaterials } from '../materials-export.ts';
import { presentVersion } from '../present.ts';
import { recordDelivery, versionFiles } from '../reads.ts';
import { taskStandingForChange, taskStandingOf } from '../standing.ts';
import { taskUsage } from '../usage.ts';

/**
 * A task's skills for the owner of its campaign (`/v1/tasks/{id}/skills…`, `/skill-usage`,
 * `/materials-export`). The owner attaches from the campaign's accepted library or its own
 * account, as a coordinator does. Another owner's task is NOT_FOUND, as a missing one.
 */
export class SkillTaskOwnerService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly requireOn: () => void,
  ) {}

  private actor(ownerId: string): Actor {
    return { ownerId, agentId: null };
  }

  /** The task's live attachments, in reading order. */
  /**
   * The task's attached skills in reading order, each with where its SKILL.md delivery stands
   * under `leaseId` (SPEC: lease_id optional; a lease of another task is refused), else under the
   * task's live lease, else none.
   */
  async list(ownerId: string, taskId: string, leaseId?: string) {
    this.requireOn();
    const db = this.database.db;
    const now = this.clock.now();
    const s = await taskStandingOf(db, this.actor(ownerId), taskId, now);
    const rows = await liveBindings(db, s.task.id);
    const usage = await taskUsage(db, ownerId, s.task.id, leaseId, now);
    const delivery = new Map(usage.skills.map((k) => [k.binding_id, k.skill_md]));
    return {
      task_id: s.task.id,
      campaign_id: s.task.campaignId,
      lease_id: usage.lease_id,
      skills: rows.map(({ binding, version }) => {
        const presented = presentBinding(binding, version);
        return {
          ...presented,
          version: presentVersion(version),
          skill_md: delivery.get(presented.binding_id) ?? null,
        };
      }),
    };
  }

  async usage(ownerId: string, taskId: string, leaseId: string | undefined) {
    this.requireOn();
    return taskUsage(this.database.db, ownerId, taskId, leaseId, this.clock.now());
  }

  async attach(
    ownerId: string,
    taskId: string,
    body: { version_id: string; purpose: string; order: number; delivery: Delivery },
  ) {
    this.requireOn();
    const now = this.clock.now();
    const { binding, version } = await this.database.transaction(async (tx) => {
      const s = await taskStandingForChange(tx, this.actor(ownerId), taskId, now);
      return attachVersion(
        tx,
        s,
        { versionId: body.version_id, purpose: body.purpose, order: body.order, delivery: body.delivery },
        now,
      );
    });
    return presentBinding(binding, version);
  }

  async update(
    ownerId: string,
    taskId: string,
    bindingId: string,
    body: { purpose?: string | undefined; order?: number | undefined; delivery?: Delivery | undefined },
  ) {
    this.requireOn();
    const now = this.clock.now();
    const binding = await this.database.transaction(async (tx) => {
      const s = await taskStandingForChange(tx, this.actor(ownerId), taskId, now);
      return updateBinding(tx, s, { bindingId, ...body }, now);
    });
    return presentBinding(binding);
  }

  async detach(ownerId: string, taskId: string, bindingId: string, reason: string | undefined) {
    this.requireOn();
    const now = this.clock.now();
    const binding = await this.database.transaction(async (tx) => {
      const s = await taskStandingForChange(tx, this.actor(ownerId), taskId, now);
      return detachBinding(tx, s, { bindingId, reason }, now);
    });
    return presentBinding(binding);
  }

  /**
   * The task's materials as one zip. The owner is not the task's worker, so this export records
   * no delivery (skill_deliveries): it never counts toward READ_BEFORE_COMPLETION, whatever
   * lease_id names; a worker reads its skills itself under context TASK.
   */
  async materials(ownerId: string, taskId: string, leaseId: string | undefined) {
    this.requireOn();
    const db = this.database.db;
    const s = await taskStandingOf(db, this.actor(ownerId), taskId, this.clock.now());
    if (leaseId !== undefined && !(await leaseOfTask(db, taskId, leaseId)))
      throw leaseNotOfTask(taskId, leaseId);
    const built = await buildMaterials(db, s.task, leaseId ?? null);
    return { zip: built.zip, sha256: built.sha256, filename: `${s.task.id}-materials.zip` };
  }

  /**
   * The task's materials for its worker (SPEC: for the leaseholder), with the identity's own
   * bearer: only while it holds the task's live lease (lease_id, when given, must be that one).
   * Every included file counts as delivered in full under the lease, READ_BEFORE_COMPLETION too.
   */
  async materialsForWorker(agent: { agentId: string }, taskId: string, leaseId: string | undefined) {
    this.requireOn();
    const now = this.clock.now();
    return this.database.transaction(async (tx) => {
      const task = await taskForSkills(tx, taskId, now);
      const lease = task?.lease;
      if (
        !task ||
        !lease ||
        lease.agentId !== agent.agentId ||
        (leaseId !== undefined && leaseId !== lease.id)
      ) {
        throw new DomainError(
          'SKILL_CONTEXT_DENIED',
          `You do not hold the current lease of task ${taskId}, so its materials are not yours to export.`,
          { task_id: taskId, ...(leaseId !== undefined ? { lease_id: leaseId } : {}) },
          { next: 'Claim the task (task_claim) or read the skills you may see with skill_list.' },
        );
      }
      const built = await buildMaterials(tx, task, lease.id, true);
      const reached = { leaseId: lease.id };
      for (const skill of built.manifest.skills as Array<{ version_id: string }>) {
        const files = await versionFiles(tx, skill.version_id);
        for (const f of files) {
          await recordDelivery(tx, agent.agentId, reached, skill.version_id, f.path, [0, f.size], now);
        }
      }
      return { zip: built.zip, sha256: built.sha256, filename: `${task.id}-materials.zip` };
    });
  }
}
