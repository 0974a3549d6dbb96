import type { Executor } from '../../../storage/database.ts';
import type { ImportBinding, Importer } from '../../reading/types.ts';
import { appendEvent } from '../core/ledger.ts';
import { requireMembership } from '../core/member.ts';
import { taskForMember } from '../core/task-access.ts';
import { findTask } from '../core/task-repo.ts';
import { campaignClosed, campaignNotOwned, taskNotFound } from '../errors.ts';
import { findCampaign } from '../membership/members-repo.ts';
import { campaignEvidence } from '../tables.ts';

/**
 * Where an import joins a campaign. A person imports into campaigns they own (as owner of
 * record); an agent into a campaign it is an active member of, for a task it can see. A task
 * named alone names its campaign; a task outside the campaign named is NOT_FOUND, as for every
 * task tool. Checked before the file is parsed (no work for a refusal) and again, with the
 * campaign locked for the ledger, when the import is stored.
 */
export async function bindImport(
  ex: Executor,
  importer: Importer,
  campaignId: string | undefined,
  taskId: string | undefined,
  opts: { forChange?: boolean } = {},
): Promise<ImportBinding> {
  if ('caller' in importer) {
    if (taskId) {
      const { member } = await taskForMember(ex, importer.caller, taskId, { campaignId, ...opts });
      return { campaignId: member.campaign.id, taskId, role: member.role };
    }
    const member = await requireMembership(ex, importer.caller, campaignId, opts);
    return { campaignId: member.campaign.id, taskId: null, role: member.role };
  }
  if (!campaignId && !taskId) return { campaignId: null, taskId: null, role: 'OWNER' };
  const task = taskId ? await findTask(ex, taskId) : null;
  if (taskId && (!task || (campaignId !== undefined && task.campaignId !== campaignId))) {
    throw taskNotFound(taskId);
  }
  const id = task?.campaignId ?? campaignId!;
  const campaign = await findCampaign(ex, id);
  if (campaign?.ownerId !== importer.ownerId) {
    throw taskId ? taskNotFound(taskId) : campaignNotOwned(id);
  }
  if (campaign.status === 'CLOSED') throw campaignClosed(id);
  return { campaignId: id, taskId: taskId ?? null, role: 'OWNER' };
}

/**
 * Shares a stored import with its campaign and writes its ledger event, in the transaction that
 * stores it. An owner's import is shared by the owner (author role OWNER, no agent), so every
 * mode treats it like the owner's other contributions (never "written by a participant").
 */
export async function recordImport(
  ex: Executor,
  binding: ImportBinding,
  importer: Importer,
  evidence: { id: string; provenance: string; format: string },
  now: Date,
): Promise<void> {
  if (!binding.campaignId) return;
  const agentId = 'caller' in importer ? importer.caller.agent.id : null;
  await ex
    .insert(campaignEvidence)
    .values({
      campaignId: binding.campaignId,
      evidenceId: evidence.id,
      agentId,
      authorRole: binding.role,
      taskId: binding.taskId,
      note: null,
      createdAt: now,
    })
    .onConflictDoNothing();
  await appendEvent(
    ex,
    binding.campaignId,
    {
      kind: 'EVIDENCE_IMPORTED',
      actor:
        'caller' in importer
          ? { agentId: agentId!, role: binding.role === 'COORDINATOR' ? 'COORDINATOR' : 'PARTICIPANT' }
          : { ownerId: importer.ownerId, role: 'OWNER' },
      taskId: binding.taskId,
      evidenceIds: [evidence.id],
      payload: { evidence_id: evidence.id, provenance: evidence.provenance, format: evidence.format },
    },
    now,
  );
}
