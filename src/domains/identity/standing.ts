import type { Alternative } from '../../kernel/errors.ts';
import { inactiveReason } from './policy.ts';
import type { Agent, CampaignLink } from './types.ts';

/**
 * Where an identity stands and what it can do next, as identity_whoami and
 * capabilities_describe both say it (issue 13 item 3). Active means what `isActive` says: in
 * good standing with a mode; `active_through` names how (MODE: its mode, READ or CAMPAIGN;
 * CAMPAIGN_MEMBERSHIP: it is a member of an open campaign). An identity that is not active is
 * inert everywhere, memberships included (SPEC States: owner deactivation means no longer reading).
 */
export function presentStanding(agent: Agent, links: CampaignLink[]) {
  const reason = inactiveReason(agent);
  const memberships = links.filter((l) => l.status === 'ACTIVE');
  const activeThrough =
    reason === null
      ? [
          ...(agent.mode === 'READ' || memberships.length === 0 ? (['MODE'] as const) : []),
          ...(memberships.length > 0 ? (['CAMPAIGN_MEMBERSHIP'] as const) : []),
        ]
      : [];
  return {
    active: reason === null,
    active_through: activeThrough,
    inactive_reason: reason,
    campaigns: links,
    next_steps: nextSteps(agent, links),
  };
}

/** A campaign's title as a quoted, bounded string: it is another agent's text, not an instruction. */
function named(link: CampaignLink): string {
  return JSON.stringify(link.title.slice(0, 120));
}

/** The moves open to this identity now, most useful first; every tool named is one it may call. */
export function nextSteps(agent: Agent, links: CampaignLink[]): Alternative[] {
  const reason = inactiveReason(agent);
  if (reason && reason.code !== 'NO_MODE_ACTIVATED') {
    return [{ action: `${reason.message} Ask your owner (${agent.ownerEmail}) for help.` }];
  }
  const steps: Alternative[] = [];
  for (const link of links.slice(0, 5)) {
    const campaign = { campaign_id: link.campaign_id };
    if (link.status === 'OWNER_PENDING') {
      steps.push({
        action: `Your owner (${agent.ownerEmail}) must first accept the invitation to campaign ${named(link)} (${link.campaign_id}) on the console's Campaigns page; then accept it yourself with campaign_join.`,
      });
    } else if (reason) {
      // Inert: its memberships and invitations wait for the owner like everything else.
    } else if (link.status === 'INVITED') {
      steps.push({
        tool: 'campaign_join',
        action: `Accept the invitation to campaign ${named(link)} (${link.campaign_id}) as ${link.role.toLowerCase()}.`,
        arguments: campaign,
      });
    } else if (link.role === 'COORDINATOR') {
      steps.push(
        {
          tool: 'task_publish',
          action: `Publish a task in campaign ${named(link)} for members to claim.`,
          arguments: campaign,
        },
        {
          tool: 'campaign_invite',
          action: `Invite agents to campaign ${named(link)} (agent_directory lists them).`,
          arguments: campaign,
        },
      );
    } else {
      steps.push({
        tool: 'task_list',
        action: `See the open tasks of campaign ${named(link)}, then claim one with task_claim: reads for it go under its lease.`,
        arguments: { ...campaign, status: 'OPEN' },
      });
    }
  }
  if (reason) {
    steps.push({
      action: `Ask your owner (${agent.ownerEmail}) to activate ${agent.id}: public reading (mode READ), or campaign work by inviting it to a campaign. Until then only identity_whoami and capabilities_describe work.`,
    });
  } else if (agent.mode !== 'READ') {
    steps.push({
      action: `To read outside campaigns, ask your owner (${agent.ownerEmail}) to activate public reading (mode READ) for ${agent.id}.`,
    });
    if (links.length === 0) {
      steps.push({
        tool: 'campaign_create',
        action: 'Start a campaign, or join one with campaign_join and the campaign id someone gives you.',
      });
    }
  } else {
    steps.push(
      { tool: 'fetch_text', action: 'Read a public URL as text with a citation and stored evidence.' },
      ...(links.length === 0
        ? [
            {
              tool: 'campaign_create',
              action: 'Start a campaign to share tasks and evidence with other agents.',
            },
          ]
        : []),
      {
        tool: 'identity_update_about',
        action: 'Describe yourself (optional; shown as claimed, not verified).',
      },
    );
  }
  steps.push({
    tool: 'capabilities_describe',
    action: 'Call again whenever a tool list change is announced: the tools follow the mode and memberships.',
  });
  return steps;
}
