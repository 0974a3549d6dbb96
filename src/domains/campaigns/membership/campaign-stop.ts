import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import { enqueueToolsChanged } from '../../identity/index.ts';
import { campaignClosed } from '../errors.ts';
import { appendEvent } from '../ledger/ledger.ts';
import { presentCampaign } from '../present.ts';
import { campaignMembers, campaigns, taskLeases } from '../tables.ts';
import { anyCampaign, ownerReason } from './campaign-close.ts';
import type { CampaignRow } from './member.ts';

/**
 * The stop phase before a close (docs/campaign-lifecycle.md): a STOPPING campaign accepts
 * nothing that starts new work (claims, tasks, members, mail, board entries, matched joins),
 * while running leases go on to their end: heartbeats, submissions, verification, messages and
 * findings still work. The owner resumes it (ACTIVE again, nothing was undone) or closes it.
 * One transaction each, taking only the campaign row, like the close's first step.
 */

type Load = (ex: Executor) => Promise<CampaignRow>;

export async function stopCampaign(database: Database, clock: Clock, load: Load, reason: string | undefined) {
  const why = ownerReason(reason, 'stopped by the owner of record', 'stop');
  return database.transaction(async (tx) => {
    const campaign = await load(tx);
    if (campaign.status === 'CLOSED') throw campaignClosed(campaign.id);
    const now = clock.now();
    const changed = await tx
      .update(campaigns)
      .set({ status: 'STOPPING', stoppedAt: now, stopReason: why })
      .where(and(eq(campaigns.id, campaign.id), eq(campaigns.status, 'ACTIVE')))
      .returning({ id: campaigns.id });
    if (changed.length > 0) {
      await appendEvent(
        tx,
        campaign.id,
        {
          kind: 'CAMPAIGN_STOPPED',
          actor: { ownerId: campaign.ownerId, role: 'OWNER' },
          payload: { reason: why },
        },
        now,
      );
      await tellInvitees(tx, campaign.id, now);
    }
    const running = await openLeases(tx, campaign.id);
    return {
      ...presentCampaign(await load(tx)),
      already_stopping: changed.length === 0,
      running_leases: running,
      next:
        running > 0
          ? `${running} running lease(s) may finish. Close the campaign when they have (POST /v1/campaigns/${campaign.id}/close), or resume it (POST /v1/campaigns/${campaign.id}/resume).`
          : `Nothing is running. Close the campaign (POST /v1/campaigns/${campaign.id}/close), or resume it (POST /v1/campaigns/${campaign.id}/resume).`,
    };
  });
}

export async function resumeCampaign(database: Database, clock: Clock, load: Load) {
  return database.transaction(async (tx) => {
    const campaign = await load(tx);
    if (campaign.status === 'CLOSED') throw campaignClosed(campaign.id);
    const now = clock.now();
    const changed = await tx
      .update(campaigns)
      .set({ status: 'ACTIVE', stoppedAt: null, stopReason: null })
      .where(and(eq(campaigns.id, campaign.id), eq(campaigns.status, 'STOPPING')))
      .returning({ id: campaigns.id });
    if (changed.length > 0) {
      await appendEvent(
        tx,
        campaign.id,
        { kind: 'CAMPAIGN_RESUMED', actor: { ownerId: campaign.ownerId, role: 'OWNER' }, payload: {} },
        now,
      );
      await tellInvitees(tx, campaign.id, now);
    }
    return {
      ...presentCampaign(await load(tx)),
      already_active: changed.length === 0,
      next: 'The campaign takes new work again: claims, tasks, members, mail and board entries.',
    };
  });
}

/** Invitees' tool lists change (campaign_join is offered only while the campaign takes members). */
async function tellInvitees(ex: Executor, campaignId: string, now: Date) {
  const invited = await ex
    .select({ agentId: campaignMembers.agentId })
    .from(campaignMembers)
    .where(and(eq(campaignMembers.campaignId, campaignId), eq(campaignMembers.status, 'INVITED')));
  for (const { agentId } of invited) await enqueueToolsChanged(ex, agentId, now);
}

async function openLeases(ex: Executor, campaignId: string): Promise<number> {
  const [row] = await ex
    .select({ n: sql<number>`count(*)::int` })
    .from(taskLeases)
    .where(and(eq(taskLeases.campaignId, campaignId), isNull(taskLeases.endedAt)));
  return row?.n ?? 0;
}

/** The operator's stop and resume (`cairn campaign stop|resume`), recorded as the owner of record's. */
export const stopByOperator = (database: Database, clock: Clock, campaignId: string, reason?: string) =>
  stopCampaign(database, clock, anyCampaign(campaignId), reason);
export const resumeByOperator = (database: Database, clock: Clock, campaignId: string) =>
  resumeCampaign(database, clock, anyCampaign(campaignId));
