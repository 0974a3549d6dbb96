import { and, eq, inArray, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import { enqueueToolsChanged } from '../../identity/index.ts';
import { type Actor, appendEvent } from '../core/ledger.ts';
import type { CampaignRow } from '../core/member.ts';
import { ownerActorId } from '../core/task-repo.ts';
import { campaignDefaults, taskLeases, tasks } from '../tables.ts';
import { endLeasesOfHolders } from '../tasks/leases.ts';
import type { CampaignMail } from '../types.ts';
import * as repo from './members-repo.ts';

/**
 * How a membership ends (docs/campaign-lifecycle.md): the agent leaves (campaign_leave), a
 * coordinator or the owner of record removes it, or the agent's own owner withdraws it. One
 * transaction: the membership becomes LEFT (how, by whom, why), the leases it holds in the
 * campaign end and their tasks reopen, reservations for it are cleared, its mail access ends,
 * and the campaign stops being its default. Its messages, evidence and submissions stay as
 * records; the ledger says what happened.
 */

export type EndHow = 'LEFT' | 'REMOVED' | 'WITHDRAWN';

const EVENT: Record<EndHow, string> = {
  LEFT: 'MEMBER_LEFT',
  REMOVED: 'MEMBER_REMOVED',
  WITHDRAWN: 'MEMBER_WITHDRAWN',
};

export async function endMembership(
  ex: Executor,
  campaign: CampaignRow,
  agentId: string,
  end: { how: EndHow; actor: Actor; reason: string | null },
  now: Date,
  campaignMail: CampaignMail,
) {
  const member = await repo.lockMember(ex, campaign.id, agentId);
  if (member?.status !== 'ACTIVE') {
    throw new DomainError(
      'NOT_A_MEMBER',
      `Agent ${agentId} is not an active member of campaign ${campaign.id}.`,
      { campaign_id: campaign.id, agent_id: agentId, membership_status: member?.status ?? null },
      end.how === 'LEFT'
        ? {}
        : {
            next: 'agent_directory (or GET /v1/campaigns/{campaign_id}) lists the active members.',
            alternatives:
              'agentId' in end.actor
                ? [
                    {
                      tool: 'agent_directory',
                      action: 'List the active members.',
                      arguments: { campaign_id: campaign.id },
                    },
                  ]
                : [],
          },
    );
  }
  const endedBy =
    'agentId' in end.actor
      ? end.actor.agentId
      : 'ownerId' in end.actor
        ? ownerActorId(end.actor.ownerId)
        : 'system';
  await repo.upsertMember(ex, {
    ...member,
    status: 'LEFT',
    updatedAt: now,
    endedHow: end.how,
    endedBy,
    endReason: end.reason,
  });
  // A reservation is for an active joined participant (SPEC Task.assignee_id): it goes too.
  const unreserved = await ex
    .update(tasks)
    .set({ assigneeId: null, version: sql`${tasks.version} + 1`, updatedAt: now })
    .where(
      and(
        eq(tasks.campaignId, campaign.id),
        eq(tasks.assigneeId, agentId),
        inArray(tasks.status, ['OPEN', 'BLOCKED']),
      ),
    )
    .returning({ id: tasks.id });
  // Task rows before the campaign row (the area's lock order): the ledger comes last.
  const leases = await endLeasesOfHolders(ex, now, {
    where: and(eq(taskLeases.agentId, agentId), eq(taskLeases.campaignId, campaign.id)) as never,
    reason: 'MEMBERSHIP_ENDED',
    actor: end.actor,
    wait: true,
  });
  const mailAccessEnded = await campaignMail.endAccess(ex, {
    campaignId: campaign.id,
    agentId,
    endedBy,
    now,
  });
  await ex
    .delete(campaignDefaults)
    .where(and(eq(campaignDefaults.agentId, agentId), eq(campaignDefaults.campaignId, campaign.id)));
  await enqueueToolsChanged(ex, agentId, now);
  await appendEvent(
    ex,
    campaign.id,
    {
      kind: EVENT[end.how],
      actor: end.actor,
      subjectAgentId: agentId,
      payload: {
        agent_id: agentId,
        role: member.role,
        ...(end.reason ? { reason: end.reason } : {}),
        leases_ended: leases.length,
        reservations_cleared: unreserved.length,
      },
    },
    now,
  );
  return {
    campaign_id: campaign.id,
    agent_id: agentId,
    membership: 'LEFT' as const,
    ended_how: end.how,
    leases_ended: leases.map((l) => ({ task_id: l.taskId, lease_id: l.id })),
    reservations_cleared: unreserved.map((t) => t.id),
    mail_access_ended: mailAccessEnded,
  };
}
