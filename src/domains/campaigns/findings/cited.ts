import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import type { EvidenceRecord, ReadingService } from '../../reading/index.ts';
import type { Membership } from '../core/member.ts';
import { campaignEvidence } from '../tables.ts';
import { inCampaign } from '../verification/source-checks.ts';

/**
 * Evidence an agent may use in this campaign: visible to it, and either its own read or shared
 * into the campaign. Null otherwise (what another campaign shared with it stays there).
 */
export async function campaignEvidenceFor(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  campaignId: string,
  id: string,
): Promise<EvidenceRecord | null> {
  let record: EvidenceRecord;
  try {
    record = await reading.evidence(caller, id, ex);
  } catch (err) {
    if (err instanceof DomainError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
  if (record.agentId === caller.agent.id || (await inCampaign(ex, campaignId, id))) return record;
  return null;
}

/**
 * Shares the caller's own evidence among `items` (what it read or wrote itself) into the campaign
 * under `taskId`, as its role there; evidence already in the campaign is left as it is.
 */
export async function shareIntoCampaign(
  ex: Executor,
  caller: Caller,
  member: Membership,
  items: ReadonlyArray<{ id: string; agentId: string | null }>,
  taskId: string | null,
  now: Date,
): Promise<void> {
  for (const { id } of items.filter((e) => e.agentId === caller.agent.id)) {
    await ex
      .insert(campaignEvidence)
      .values({
        campaignId: member.campaign.id,
        evidenceId: id,
        agentId: caller.agent.id,
        authorRole: member.role,
        taskId,
        note: null,
        createdAt: now,
      })
      .onConflictDoNothing();
  }
}
