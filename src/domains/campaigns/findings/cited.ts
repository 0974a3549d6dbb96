import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import type { EvidenceRecord, ReadingService } from '../../reading/index.ts';
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
