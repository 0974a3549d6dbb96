import type { Alternative } from '../../kernel/errors.ts';

/**
 * The next moves a campaign tool's success names (issue 13 item 3): the tool, what it is for, and
 * the arguments already known. Each is a move the caller may make at that point; moves that are
 * someone else's (the invitee's, the owner's) are said in words, without a tool.
 */

const inCampaign = (campaignId: string) => ({ campaign_id: campaignId });

/** For a coordinator of a campaign: put work in it, and people. */
export function coordinatorMoves(campaignId: string): Alternative[] {
  return [
    {
      tool: 'task_publish',
      action: 'Publish a task: title, objective, acceptance and every condition term.',
      arguments: inCampaign(campaignId),
    },
    {
      tool: 'campaign_invite',
      action: 'Invite agents to work on it (agent_directory lists agents you may invite).',
      arguments: inCampaign(campaignId),
    },
  ];
}

/** For a participant: find work. */
export function participantMoves(campaignId: string): Alternative[] {
  return [
    {
      tool: 'task_list',
      action: 'See the open tasks, then claim one with task_claim: reads for it go under its lease.',
      arguments: { ...inCampaign(campaignId), status: 'OPEN' },
    },
  ];
}

/** After campaign_create. */
export function afterCreate(campaignId: string, open: boolean): Alternative[] {
  return [
    ...coordinatorMoves(campaignId),
    ...(open
      ? [
          {
            action: `Or share the campaign_id ${campaignId}: an open campaign is joined directly with campaign_join.`,
          },
        ]
      : []),
  ];
}

/** After campaign_join: work as the role says, or wait for a coordinator to admit the application. */
export function afterJoin(joined: { campaign_id: string; membership: string; role?: string }): Alternative[] {
  if (joined.membership !== 'ACTIVE') {
    return [
      {
        tool: 'campaign_list',
        action: 'See whether a coordinator admitted you (membership ACTIVE), then call campaign_join again.',
      },
    ];
  }
  return joined.role === 'COORDINATOR'
    ? coordinatorMoves(joined.campaign_id)
    : participantMoves(joined.campaign_id);
}

/** After campaign_invite (the invitee's own move is in the answer's `next`). */
export function afterInvite(campaignId: string): Alternative[] {
  return [
    coordinatorMoves(campaignId)[0] as Alternative,
    {
      tool: 'events_watch',
      action: 'Wait for the agent to join (MEMBER_JOINED) and for work on the tasks.',
      arguments: inCampaign(campaignId),
    },
  ];
}

/** After task_publish: who claims it. */
export function afterPublish(
  campaignId: string,
  taskId: string,
  assigneeId: string | undefined,
  callerId: string,
  fundUrl?: string | undefined,
): Alternative[] {
  if (fundUrl) {
    // Unfunded: nobody can claim it, so the claim is not offered; the owner's funding comes first.
    return [
      {
        action: `The reward is not funded: the campaign owner's balance did not cover it. Tell the owner to fund it at ${fundUrl}; until then it cannot be claimed.`,
      },
      {
        tool: 'events_watch',
        action: 'Wait for REWARD_ESCROWED: the task is claimable from then on.',
        arguments: inCampaign(campaignId),
      },
    ];
  }
  return [
    assigneeId !== undefined && assigneeId !== callerId
      ? {
          action: `Reserved for ${assigneeId}: only that member can claim it (task_claim); task_assign changes or clears the reservation.`,
        }
      : {
          tool: 'task_claim',
          action:
            'Any active member (you too) claims it; the claimer gets a lease with an execution deadline, and reads for the task go under it.',
          arguments: { task_id: taskId },
        },
    {
      tool: 'events_watch',
      action: 'Wait for it to be claimed, submitted and verified.',
      arguments: inCampaign(campaignId),
    },
  ];
}

/** After task_list: the first task this caller can claim now, or waiting for one. */
export function afterList(
  campaignId: string,
  tasks: Array<{ task_id: string; status: string; reserved: boolean; assignee_id?: string | null }>,
  callerId: string,
): Alternative[] {
  const claimable = tasks.find((t) => t.status === 'OPEN' && (!t.reserved || t.assignee_id === callerId));
  return claimable
    ? [{ tool: 'task_claim', action: 'Claim this open task.', arguments: { task_id: claimable.task_id } }]
    : [
        {
          tool: 'events_watch',
          action: 'No task here is open to you now: wait for one to be published or reopened.',
          arguments: inCampaign(campaignId),
        },
      ];
}

/** After task_claim: read for the task, then submit or give up. */
export function afterClaim(taskId: string, leaseId: string, deadline: string): Alternative[] {
  const lease = { task_id: taskId, lease_id: leaseId };
  return [
    {
      tool: 'fetch_text',
      action:
        'Read sources for the task: with task_id, each read is filed under this lease as campaign evidence.',
      arguments: { task_id: taskId },
    },
    {
      tool: 'task_complete',
      action: `Submit the result before ${deadline}, quoting the evidence verbatim; the quotations are checked against it.`,
      arguments: lease,
    },
    {
      tool: 'task_release',
      action: 'Give the task up with a reason if you cannot finish it.',
      arguments: lease,
    },
  ];
}

/** After task_complete: resubmit under the same lease when a check failed, else find more work. */
export function afterSubmit(
  submitted: { task_id: string; task_status: string; campaign_id?: string },
  leaseId: string,
  paid = false,
): Alternative[] {
  if (submitted.task_status !== 'VERIFIED') {
    const lease = { task_id: submitted.task_id, lease_id: leaseId };
    return [
      {
        tool: 'task_complete',
        action: 'Fix what the failed checks name (see next.action) and submit again under the same lease.',
        arguments: lease,
      },
      {
        tool: 'task_release',
        action: 'Give the task up with a reason if you cannot fix it.',
        arguments: lease,
      },
    ];
  }
  const next: Alternative[] = [
    { tool: 'task_list', action: 'Find your next open task.', arguments: { status: 'OPEN' } },
  ];
  // A verified paid task: the worker asks for the reward; the owner's approval pays it.
  if (paid) {
    next.unshift({
      tool: 'reward_release',
      action: 'Ask the campaign owner to approve the payout of the reward (nothing is paid until they do).',
      arguments: { task_id: submitted.task_id, action: 'RELEASE' },
    });
  }
  return next;
}
