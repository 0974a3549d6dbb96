import { z } from 'zod';
import { defineOperation } from '../../operations/index.ts';
import { viewerOf } from '../audience.ts';
import { requireMembership } from '../membership/member.ts';
import { COORDINATOR_VISIBLE_WHEN, MEMBER_VISIBLE_WHEN, whenCoordinator, whenMember } from '../policy.ts';
import { agentIdArg, campaignIdArg, messageIdArg, taskIdArg, titleArg } from '../schemas.ts';
import type { CampaignCtx } from '../services.ts';
import { AGENT_MESSAGE_TYPES, type MessageDraft, messageContentArg, postMessage } from './messages.ts';
import { createProposal, recordDecision, respondToProposal } from './proposals.ts';

/** Writing to a campaign: notes, questions, answers, refusals, direct messages, proposals, decisions. */

const typeArg = z
  .enum(AGENT_MESSAGE_TYPES)
  .describe('NOTE, QUESTION, ANSWER, or REFUSAL (you decline or stop something, with the reason).');
const replyToArg = messageIdArg.describe(
  'The message this answers (msg_…), one you can see in this campaign.',
);
const taskLinkArg = taskIdArg.describe(
  'A task of this campaign the message is about (links work; it does not choose who reads it).',
);

const messageFields = {
  campaign_id: campaignIdArg.optional(),
  type: typeArg,
  content: messageContentArg,
  reply_to: replyToArg.optional(),
  task_id: taskLinkArg.optional(),
};

/** Shared by message_append and message_send: one write path, so both record the same way. */
async function appendFromTool(
  ctx: CampaignCtx,
  input: { campaign_id?: string | undefined } & Omit<MessageDraft, 'label' | 'data'>,
) {
  const m = await requireMembership(ctx.ex, ctx.caller, input.campaign_id, { forChange: true });
  const { row: _row, ...posted } = await postMessage(
    ctx.ex,
    viewerOf(m),
    input,
    { kind: 'MESSAGE_POSTED' },
    ctx.clock.now(),
  );
  return posted;
}

const messageAppend = defineOperation({
  name: 'message_append',
  group: 'Campaigns',
  description:
    "Write to the campaign's ledger: a NOTE, QUESTION, ANSWER or REFUSAL, campaign-wide or, with addressed_to, to one active member only (and the owner of record). Names in the content never route a message. Returns {message_id, seq, created_at}.",
  input: z
    .object({
      ...messageFields,
      addressed_to: agentIdArg
        .describe('One active member (agt_…) to address directly; omitted, the whole campaign.')
        .optional(),
    })
    .strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) =>
    appendFromTool(ctx, {
      campaign_id: input.campaign_id,
      type: input.type,
      content: input.content,
      addressedTo: input.addressed_to,
      replyTo: input.reply_to,
      taskId: input.task_id,
    }),
});

const messageSend = defineOperation({
  name: 'message_send',
  group: 'Campaigns',
  description:
    'Send a direct message to one active member of the campaign (seen by you, them and the owner of record; not by other members). The same as message_append with addressed_to. Returns {message_id, seq, created_at}.',
  input: z
    .object({ ...messageFields, to: agentIdArg.describe('The active member (agt_…) to write to.') })
    .strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) =>
    appendFromTool(ctx, {
      campaign_id: input.campaign_id,
      type: input.type,
      content: input.content,
      addressedTo: input.to,
      replyTo: input.reply_to,
      taskId: input.task_id,
    }),
});

const proposalCreate = defineOperation({
  name: 'proposal_create',
  group: 'Campaigns',
  description:
    'Propose something to the campaign (a plan, a change, a conclusion). It stays OPEN for responses (proposal_respond) until a coordinator records a decision (decision_record). Returns {proposal_id, status}.',
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      title: titleArg.describe('A short title (up to 200 characters).'),
      content: messageContentArg,
      task_id: taskLinkArg.optional(),
    })
    .strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    const m = await requireMembership(ctx.ex, ctx.caller, input.campaign_id, { forChange: true });
    return createProposal(ctx.ex, m, input, ctx.clock.now());
  },
});

const proposalRespond = defineOperation({
  name: 'proposal_respond',
  group: 'Campaigns',
  description:
    'Respond to an OPEN proposal you can see: SUPPORT, OBJECT or COMMENT, with your reasons. A decided proposal takes no more responses.',
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      proposal_id: messageIdArg.describe('The proposal (msg_…).'),
      response: z.enum(['SUPPORT', 'OBJECT', 'COMMENT']),
      content: messageContentArg,
    })
    .strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    const m = await requireMembership(ctx.ex, ctx.caller, input.campaign_id, { forChange: true });
    return respondToProposal(ctx.ex, m, input, ctx.clock.now());
  },
});

const decisionRecord = defineOperation({
  name: 'decision_record',
  group: 'Campaigns',
  description:
    'Record a decision (coordinators only): ACCEPTED, REJECTED or NOTED, with its reasons. With proposal_id it decides that OPEN proposal, whose status becomes the outcome. Returns {decision_id, outcome, proposal_status}.',
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      content: messageContentArg,
      outcome: z.enum(['ACCEPTED', 'REJECTED', 'NOTED']),
      proposal_id: messageIdArg.describe('The OPEN proposal this decides (msg_…), if any.').optional(),
      task_id: taskLinkArg.optional(),
    })
    .strict(),
  mutates: true,
  visibleWhen: COORDINATOR_VISIBLE_WHEN,
  visibility: whenCoordinator,
  handler: async (ctx: CampaignCtx, input) => {
    const m = await requireMembership(ctx.ex, ctx.caller, input.campaign_id, { forChange: true });
    return recordDecision(ctx.ex, m, input, ctx.clock.now());
  },
});

export { decisionRecord, messageAppend, messageSend, proposalCreate, proposalRespond };
