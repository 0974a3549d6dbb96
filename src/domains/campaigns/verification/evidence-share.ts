import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import type { ReadingService } from '../../reading/index.ts';
import { appendEvent } from '../ledger/ledger.ts';
import { requireMembership } from '../membership/member.ts';
import { campaignEvidence } from '../tables.ts';
import { taskForMember } from '../tasks/task-access.ts';
import { inCampaign } from './source-checks.ts';

/** evidence_submit: shares a stored read the caller may see with the campaign (and a task). */
export async function submitEvidence(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  input: {
    campaignId?: string | undefined;
    evidenceId: string;
    taskId?: string | undefined;
    note?: string | undefined;
  },
  now: Date,
) {
  const member = input.taskId
    ? (await taskForMember(ex, caller, input.taskId, { forChange: true, campaignId: input.campaignId }))
        .member
    : await requireMembership(ex, caller, input.campaignId, { forChange: true });
  const evidence = await reading.evidenceMeta(caller, input.evidenceId, ex);
  // Only one's own reads travel into a campaign: what another campaign shared stays there.
  if (evidence.agentId !== caller.agent.id && !(await inCampaign(ex, member.campaign.id, evidence.id))) {
    throw new DomainError('NOT_FOUND', `Evidence ${evidence.id} is not one of your reads.`, {
      evidence_id: evidence.id,
    });
  }
  const inserted = await ex
    .insert(campaignEvidence)
    .values({
      campaignId: member.campaign.id,
      evidenceId: evidence.id,
      agentId: caller.agent.id,
      authorRole: member.role,
      taskId: input.taskId ?? null,
      note: input.note ?? null,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning({ evidenceId: campaignEvidence.evidenceId });
  if (inserted.length > 0) {
    await appendEvent(
      ex,
      member.campaign.id,
      {
        kind: 'EVIDENCE_SUBMITTED',
        actor: { agentId: caller.agent.id, role: member.role },
        taskId: input.taskId ?? null,
        evidenceIds: [evidence.id],
        payload: { evidence_id: evidence.id, note: input.note ?? null, provenance: evidence.provenance },
      },
      now,
    );
  }
  return {
    evidence_id: evidence.id,
    campaign_id: member.campaign.id,
    task_id: input.taskId ?? null,
    already_shared: inserted.length === 0,
    visibility: member.campaign.visibility,
  };
}
