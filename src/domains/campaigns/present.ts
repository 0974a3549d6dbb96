import type { CampaignRow, MemberRole } from './core/member.ts';

/** Row → wire shapes of campaigns. */

export function presentCampaign(c: CampaignRow) {
  return {
    campaign_id: c.id,
    title: c.title,
    objective: c.objective,
    owner_of_record: c.ownerId,
    created_by: c.createdBy,
    budget: c.budget ?? null,
    scopes: c.scopes,
    allow_agent_publish: c.allowAgentPublish,
    visibility: c.visibility,
    participation: c.participation,
    status: c.status,
    created_at: c.createdAt.toISOString(),
    stopped_at: c.stoppedAt?.toISOString() ?? null,
    stop_reason: c.stopReason ?? null,
    closed_at: c.closedAt?.toISOString() ?? null,
    close_reason: c.closeReason ?? null,
  };
}

export function presentMembership(
  c: CampaignRow,
  m: { role: MemberRole; status: string; isDefault: boolean },
) {
  return {
    campaign_id: c.id,
    title: c.title,
    visibility: c.visibility,
    participation: c.participation,
    campaign_status: c.status,
    role: m.role,
    membership: m.status,
    is_default: m.isDefault,
  };
}
