import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import { blindReplyTo, viewerOf } from '../audience.ts';
import { type Membership, requireCoordinator } from '../core/member.ts';
import * as repo from './message-repo.ts';
import { postMessage } from './messages.ts';

/**
 * Proposals, responses and decisions: messages with a type and a little state. A proposal is
 * OPEN until a coordinator records a decision on it; its status then becomes the outcome and it
 * takes no more responses (or decisions). Everything is recorded on the ledger like any message.
 */

export type ProposalResponse = 'SUPPORT' | 'OBJECT' | 'COMMENT';
export type DecisionOutcome = 'ACCEPTED' | 'REJECTED' | 'NOTED';

export async function createProposal(
  ex: Executor,
  m: Membership,
  input: { title: string; content: string; taskId?: string | undefined },
  now: Date,
) {
  const posted = await postMessage(
    ex,
    viewerOf(m),
    {
      type: 'PROPOSAL',
      content: input.content,
      taskId: input.taskId,
      data: { status: 'OPEN', title: input.title },
    },
    { kind: 'PROPOSAL_CREATED' },
    now,
  );
  return { proposal_id: posted.message_id, status: 'OPEN', seq: posted.seq, created_at: posted.created_at };
}

/** A response joins the proposal's thread and inherits its task, so it reaches the same audience. */
export async function respondToProposal(
  ex: Executor,
  m: Membership,
  input: { proposalId: string; response: ProposalResponse; content: string },
  now: Date,
) {
  const proposal = await lockOpenProposal(ex, m, input.proposalId);
  const posted = await postMessage(
    ex,
    viewerOf(m),
    {
      type: 'PROPOSAL_RESPONSE',
      content: input.content,
      addressedTo: threadAddressee(m, proposal),
      threadReply: true,
      replyTo: proposal.id,
      taskId: proposal.taskId,
      data: { response: input.response },
    },
    { kind: 'PROPOSAL_RESPONDED', payload: { proposal_id: proposal.id, response: input.response } },
    now,
  );
  return {
    message_id: posted.message_id,
    proposal_id: proposal.id,
    response: input.response,
    seq: posted.seq,
    created_at: posted.created_at,
  };
}

/** Coordinators record decisions; one on a proposal closes it with the outcome as its status. */
export async function recordDecision(
  ex: Executor,
  m: Membership,
  input: {
    content: string;
    outcome: DecisionOutcome;
    proposalId?: string | undefined;
    taskId?: string | undefined;
  },
  now: Date,
) {
  requireCoordinator(m, 'record decisions');
  const proposal = input.proposalId ? await lockOpenProposal(ex, m, input.proposalId) : null;
  const posted = await postMessage(
    ex,
    viewerOf(m),
    {
      type: 'DECISION',
      content: input.content,
      addressedTo: proposal ? threadAddressee(m, proposal) : null,
      threadReply: true,
      replyTo: proposal?.id ?? null,
      taskId: input.taskId ?? proposal?.taskId ?? null,
      data: { outcome: input.outcome, proposal_id: proposal?.id ?? null },
    },
    { kind: 'DECISION_RECORDED', payload: { proposal_id: proposal?.id ?? null, outcome: input.outcome } },
    now,
  );
  // The proposal row is locked since lockOpenProposal, so this takes no lock after the campaign row's.
  if (proposal) {
    await repo.mergeMessageData(ex, proposal.id, { status: input.outcome, decision_id: posted.message_id });
  }
  return {
    decision_id: posted.message_id,
    outcome: input.outcome,
    proposal_id: proposal?.id ?? null,
    proposal_status: proposal ? input.outcome : null,
    seq: posted.seq,
    created_at: posted.created_at,
  };
}

/** The proposal, visible to the member and still OPEN, locked against a concurrent decision. */
async function lockOpenProposal(ex: Executor, m: Membership, proposalId: string) {
  const visible = await repo.findVisibleMessage(ex, viewerOf(m), proposalId);
  if (visible?.type !== 'PROPOSAL') {
    throw new DomainError(
      'NOT_FOUND',
      `No proposal ${proposalId} that you can see exists in this campaign.`,
      {
        proposal_id: proposalId,
        campaign_id: m.campaign.id,
      },
    );
  }
  const locked = await repo.lockMessage(ex, proposalId);
  const status = locked?.data.status;
  if (!locked || status !== 'OPEN') {
    throw new DomainError(
      'PROPOSAL_NOT_OPEN',
      `Proposal ${proposalId} was already decided (${String(status)}).`,
      {
        proposal_id: proposalId,
        status,
        decision_id: locked?.data.decision_id ?? null,
      },
    );
  }
  return locked;
}

/**
 * Under BLIND_EXPERIMENT an answer to a participant's proposal goes to the proposer only, by the
 * role the proposal was written with (a later promotion does not widen its thread).
 */
function threadAddressee(m: Membership, proposal: { agentId: string | null; authorRole: string }) {
  return blindReplyTo(viewerOf(m), proposal, proposal.authorRole);
}
