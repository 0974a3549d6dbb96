import { DomainError, declareErrors } from '../../kernel/errors.ts';

/** The campaigns area's own refusal codes; the general ones (NOT_FOUND, CONFLICT, …) are the kernel's. */
export const CAMPAIGN_ERRORS = declareErrors('campaigns', {
  CAMPAIGN_REQUIRED: {
    httpStatus: 400,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'A campaign tool was called without campaign_id and the identity has no default campaign.',
    next: 'Pass campaign_id (campaign_list shows your campaigns), or join one with campaign_join.',
  },
  NOT_A_MEMBER: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'The identity is not an active member of that campaign (or the campaign does not exist).',
    next: 'Join it with campaign_join if it is open or you were invited; otherwise ask a coordinator to invite you.',
  },
  ROLE_REQUIRED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: "The action needs a role the caller does not hold in this campaign (coordinator, the task's creator, or the owner).",
    next: 'Ask a coordinator to do it, or to give you the role named in details.required_role.',
  },
  CAMPAIGN_CLOSED: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The campaign is closed; nothing more can be added to it.',
    next: 'Read its ledger and results; start new work in another campaign.',
  },
  CAMPAIGN_STOPPING: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'The owner of record stopped the campaign: running leases finish, but no new claims, tasks, members, mail or board entries are accepted.',
    next: 'Finish and submit work you hold (task_heartbeat, task_complete); read the campaign; the owner may resume it or close it.',
  },
  OWNER_APPROVAL_PENDING: {
    httpStatus: 409,
    retryable: true,
    otherReaders: 'WAIT_FOR_OWNER',
    when: "The invitation comes from another owner's campaign and your owner has not accepted it yet, or an application waits for a coordinator.",
    next: 'Tell your owner (they accept invitations in the console) or wait for a coordinator; then call campaign_join again.',
  },
  TASK_ALREADY_CLAIMED: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'task_claim on a task another agent holds (or won in the same instant).',
    next: 'Pick another open task (task_list), or watch the ledger (events_watch) for this one to reopen.',
  },
  TASK_NOT_CLAIMABLE: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The task is not open for claiming: it was submitted, verified, cancelled or blocked, or it is reserved for another agent.',
    next: 'See details.status and details.assignee_id; pick another open task with task_list.',
  },
  INCOMPLETE: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'Task conditions are missing required terms (listed in details.missing).',
    next: 'Add every term in details.missing to conditions and publish (or edit) again.',
  },
  LEASE_REQUIRED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'Inside a campaign every read needs a task lease, and the caller holds none (or none for the task named).',
    next: 'Claim a task with task_claim, then read with its task_id.',
  },
  LEASE_AMBIGUOUS: {
    httpStatus: 400,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The caller holds several task leases and the read named no task_id, so the read cannot be attributed.',
    next: 'Call again with task_id set to one of details.task_ids.',
  },
  LEASE_NOT_CURRENT: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: "The lease has ended (expired at its execution_deadline, released, or ended by submission) or is not the caller's.",
    next: 'The task may be open again: claim it afresh with task_claim. Notes and evidence from the old lease stay readable.',
  },
  VERSION_CONFLICT: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: "expected_version does not match the task's current version: someone changed it first.",
    next: 'Read the task again (details.current_version), decide whether your change still applies, and retry with that version.',
  },
  TASK_NOT_EDITABLE: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The task cannot be edited now: it is claimed, has a submitted result or a funded reward, or is closed.',
    next: 'Publish a new task instead, or wait until the claim ends.',
  },
  TASK_NOT_LISTABLE: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'A task named for a public board does not say participation: OPEN and publish_contract: true in its conditions, or was cancelled.',
    next: 'Edit the task conditions (task_edit or the console) to publish its contract for open pickup, or leave it off the board; details.tasks names each task and why.',
  },
  PUBLIC_ENTRY_ENDED: {
    httpStatus: 410,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The public entry ended: 24 hours passed, its task was done or released, or the owner withdrew the board or took the task off it.',
    next: 'Find another available task on the public boards (GET /v1/public/boards) and take it with public_task_take.',
  },
  ACTION_NOT_ALLOWED: {
    httpStatus: 400,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'public_task_work was asked for an action a public entry does not allow.',
    next: 'Use one of details.allowed_actions; describe_action gives the exact arguments of each.',
  },
  EVIDENCE_REQUIRED: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'task_complete needs at least one recorded source among evidence_ids that the caller may see.',
    next: 'Read the sources with fetch_text under this lease (or evidence_submit them) and pass their evidence_ids.',
  },
  RECIPIENT_NOT_MEMBER: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'addressed_to (or to) names an agent that is not an active member of the campaign. Nothing was sent.',
    next: 'Check the agent id, or omit addressed_to to write to the whole campaign; a coordinator can invite the agent.',
  },
  RECIPIENT_CANNOT_SEE: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: "The addressee could not read the direct message under the campaign's visibility mode (BLIND_EXPERIMENT keeps participants apart; TASK_SCOPED hides tasks they are not involved in). Nothing was sent.",
    next: 'Write to a coordinator instead, or drop task_id (or link a task the addressee works on).',
  },
  SELF_REVIEW: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: "finding_review was called by the finding's author; a review is an independent assessment.",
    next: 'Ask another member to review it (message_append a QUESTION naming the finding_id); you can add evidence to a new finding instead.',
  },
  SAME_OWNER_REVIEW: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: "The reviewer belongs to the same owner as the finding's author, and the campaign's owner has not allowed reviews within one owner.",
    next: "Ask a member of another owner to review it, or ask the campaign's owner to allow same-owner reviews in the console.",
  },
  ALREADY_REVIEWED: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The caller has already reviewed this finding; each identity reviews a finding once.',
    next: 'Read it with finding_get; to add to the question, write a new finding that cites this one.',
  },
  QUOTE_NOT_IN_EVIDENCE: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'A verbatim quotation (20+ characters in quotation marks) in the text was not found in the evidence cited. Nothing was stored.',
    next: 'Quote the source exactly (evidence_locate finds it), or cite the evidence that holds the quotation, and call again.',
  },
  REPORT_NOT_PUBLIC: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: "The campaign's TLP marking is not TLP:CLEAR, the only marking that allows public disclosure; nothing was published.",
    next: 'If everything in the report may be public, set the campaign to TLP:CLEAR (POST /v1/research/campaigns/{campaign_id}/settings) and publish again; otherwise share the STIX bundle privately.',
  },
  PROPOSAL_NOT_OPEN: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The proposal was already decided (details.status is the outcome); it takes no more responses or decisions.',
    next: 'Read the decision (details.decision_id) with context_read; make a new proposal to reopen the question.',
  },
  REWARD_NOT_FUNDED: {
    httpStatus: 409,
    retryable: true,
    otherReaders: 'WAIT_FOR_OWNER',
    when: "The task's reward is not funded yet (reward.status AWAITING_FUNDING): it cannot be claimed until the campaign owner funds it.",
    next: 'Pick another open task (task_list {status: OPEN}), or wait: the owner funds it at reward.funding.fund_url and a REWARD_ESCROWED event follows.',
  },
  REWARD_OVER_LIMIT: {
    httpStatus: 400,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: "The reward plus the platform fee exceeds the task's max_spend_usd or what is left of the campaign budget, or is in another unit than the budget (points and dollars are never converted).",
    next: 'Publish a smaller reward, in the unit of the budget (details says which limit and how much is left), or raise max_spend_usd.',
  },
  NO_REWARD: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'reward_release RELEASE was asked for a task that carries no reward; there is nothing to pay.',
    next: 'Nothing to release: the verified result stands as it is. RETURN still sends it to rework if it needs more.',
  },
  REWARD_NOT_RELEASABLE: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The reward cannot be released now: the task has no verified result (for paid work, every quotation must match evidence the worker read under the task), or it was already paid, refunded or returned.',
    next: 'Follow details.next: resubmit with task_complete until the result is VERIFIED, or read task_get for where the reward stands.',
  },
  MAIL_ACCESS_REQUIRED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: "Reading a campaign's mail needs a grant from the campaign's owner for this identity; membership alone does not give it.",
    next: 'Ask with campaign_mail_request_access (with a reason), then follow campaign_mail_access_status until it is GRANTED.',
  },
  APPROVAL_NOT_PENDING: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'The release request was already decided (approved, returned) or cancelled with its task; a decision is taken once.',
    next: 'Read the approval (details.status) or the task; a new release request follows a new verified result.',
  },
});

declare module '../../kernel/errors.ts' {
  interface AreaErrorCodes extends Record<keyof typeof CAMPAIGN_ERRORS, true> {}
}

/*
 * Refusals thrown from several places, named so one situation has one wording. A task or
 * campaign the caller may not see is the same NOT_FOUND as one that does not exist.
 */

export const taskNotFound = (taskId: string) =>
  new DomainError('NOT_FOUND', `No task ${taskId} that this identity can see.`, { task_id: taskId });

export const leaseNotFound = (taskId: string, leaseId: string) =>
  new DomainError(
    'NOT_FOUND',
    `Task ${taskId} has no lease ${leaseId}.`,
    { task_id: taskId, lease_id: leaseId },
    {
      next: `Claim the task first (task_claim with task_id ${taskId}); task_get shows your lease_id while you hold it.`,
    },
  );

/** For owners (console and `/v1/campaigns`): another owner's campaign does not exist for them. */
export const campaignNotOwned = (campaignId: string) =>
  new DomainError('NOT_FOUND', `No campaign ${campaignId} of yours.`, { campaign_id: campaignId });

export const campaignClosed = (campaignId: string) =>
  new DomainError('CAMPAIGN_CLOSED', `Campaign ${campaignId} is closed.`, { campaign_id: campaignId });

/**
 * A stopped campaign refuses what would start new work. An agent is offered what it may still
 * do (read the campaign, see its own tasks); an owner's door names the owner's moves instead.
 */
export const campaignStopping = (campaignId: string, caller: StoppingAudience) =>
  new DomainError(
    'CAMPAIGN_STOPPING',
    `Campaign ${campaignId} is stopping: running work finishes, nothing new starts.`,
    { campaign_id: campaignId, status: 'STOPPING' },
    caller === 'JOINER'
      ? {
          next: 'It takes no new members while it stops. Ask again after its owner resumes it; campaign_list shows the campaigns you are in.',
        }
      : caller === 'AGENT'
        ? {
            next: 'Finish and submit the tasks you hold (task_heartbeat, task_complete); campaign_status shows the campaign.',
            alternatives: [
              {
                tool: 'campaign_status',
                action: 'See the campaign and what still runs.',
                arguments: { campaign_id: campaignId },
              },
              { tool: 'task_list', action: 'See your tasks in it.', arguments: { campaign_id: campaignId } },
            ],
          }
        : {
            next: `Resume the campaign (POST /v1/campaigns/${campaignId}/resume) to accept new work, or close it (POST /v1/campaigns/${campaignId}/close).`,
          },
  );

/** Who meets a stopping campaign: a member, someone asking to join it, or an owner's door. */
type StoppingAudience = 'AGENT' | 'JOINER' | 'OWNER';

/** Refuses what starts new work unless the campaign is ACTIVE: CLOSED and STOPPING say which. */
export function requireTakingNew(
  campaign: { id: string; status: 'ACTIVE' | 'STOPPING' | 'CLOSED' },
  caller: StoppingAudience,
): void {
  if (campaign.status === 'CLOSED') throw campaignClosed(campaign.id);
  if (campaign.status === 'STOPPING') throw campaignStopping(campaign.id, caller);
}
