import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import { enqueueToolsChanged } from '../../identity/index.ts';
import { anyCampaign, ownerReason } from '../campaign-close.ts';
import { appendEvent } from '../core/ledger.ts';
import type { CampaignRow } from '../core/member.ts';
import { campaignClosed } from '../errors.ts';
import { presentCampaign } from '../present.ts';
import { campaignMembers, campaigns, taskLeases } from '../tables.ts';

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
    const now = clock.now();
    const { campaign, changed } = await move(tx, now, load, {
      from: 'ACTIVE',
      to: { status: 'STOPPING', stoppedAt: now, stopReason: why },
      event: { kind: 'CAMPAIGN_STOPPED', payload: { reason: why } },
    });
    const running = await openLeases(tx, campaign.id);
    const close = `POST /v1/campaigns/${campaign.id}/close`;
    const resume = `POST /v1/campaigns/${campaign.id}/resume`;
    return {
      ...presentCampaign(campaign),
      already_stopping: !changed,
      running_leases: running,
      next:
        running > 0
          ? `${running} running lease(s) may finish. Close the campaign when they have (${close}), or resume it (${resume}).`
          : `Nothing is running. Close the campaign (${close}), or resume it (${resume}).`,
    };
  });
}

export async function resumeCampaign(database: Database, clock: Clock, load: Load) {
  return database.transaction(async (tx) => {
    const { campaign, changed } = await move(tx, clock.now(), load, {
      from: 'STOPPING',
      to: { status: 'ACTIVE', stoppedAt: null, stopReason: null },
      event: { kind: 'CAMPAIGN_RESUMED', payload: {} },
    });
    return {
      ...presentCampaign(campaign),
      already_active: !changed,
      next: 'The campaign takes new work again: claims, tasks, members, mail and board entries.',
    };
  });
}

/**
 * One move between ACTIVE and STOPPING, taking only the campaign row: the owner's event on the
 * ledger and the invitees told, when it moved; a closed campaign is refused. Answers the row as
 * it is now and whether this call moved it (a repeat is harmless).
 */
async function move(
  tx: Executor,
  now: Date,
  load: Load,
  m: {
    from: 'ACTIVE' | 'STOPPING';
    to: Pick<CampaignRow, 'status' | 'stoppedAt' | 'stopReason'>;
    event: { kind: string; payload: Record<string, unknown> };
  },
) {
  const found = await load(tx);
  if (found.status === 'CLOSED') throw campaignClosed(found.id);
  const [moved] = await tx
    .update(campaigns)
    .set(m.to)
    .where(and(eq(campaigns.id, found.id), eq(campaigns.status, m.from)))
    .returning();
  if (moved) {
    await appendEvent(tx, found.id, { ...m.event, actor: { ownerId: found.ownerId, role: 'OWNER' } }, now);
    await tellInvitees(tx, found.id, now);
  }
  return { campaign: moved ?? found, changed: moved !== undefined };
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
