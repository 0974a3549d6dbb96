import { z } from 'zod';
import { viewerOf } from '../audience.ts';
import { COORDINATORS, memberTool } from '../campaign-tool.ts';
import type { Membership } from '../core/member.ts';
import { agentIdArg, messageIdArg, taskIdArg, titleArg } from '../schemas.ts';
import type { CampaignCtx } from '../services.ts';
import {
  AGENT_MESSAGE_TYPES,
  type MessageDraft,
  messageContentArg,
  postMessage,
  postMessageAtCommit,
} from './messages.ts';
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
  type: typeArg,
  content: messageContentArg,
  reply_to: replyToArg.optional(),
  task_id: taskLinkArg.optional(),
};

/** Shared by message_append and message_send: one write path, so both record the same way. */
async function appendFromTool(ctx: CampaignCtx, m: Membership, draft: Omit<MessageDraft, 'label' | 'data'>) {
  const author = viewerOf(m);
  const event = { kind: 'MESSAGE_POSTED' } as const;
  const now = ctx.clock.now();
  // Run by the runner, the message is the call's last write and goes with its COMMIT.
  const { row: _row, ...posted } = ctx.end
    ? await postMessageAtCommit(ctx.ex, ctx.end, author, draft, event, now)
    : await postMessage(ctx.ex, author, draft, event, now);
  return posted;
}

const messageAppend = memberTool({
  name: 'message_append',
  description:
    "Write to the campaign's ledger: a NOTE, QUESTION, ANSWER or REFUSAL, campaign-wide or, with addressed_to, to one active member only (and the owner of record). Names in the content never route a message. Returns {message_id, seq, created_at}.",
  args: {
    ...messageFields,
    addressed_to: agentIdArg
      .describe('One active member (agt_…) to address directly; omitted, the whole campaign.')
      .optional(),
  },
  mutates: true,
  handler: async (ctx, input, m) => appendFromTool(ctx, m, input),
});

const messageSend = memberTool({
  name: 'message_send',
  description:
    'Send a direct message to one active member of the campaign (seen by you, them and the owner of record; not by other members). The same as message_append with addressed_to. Returns {message_id, seq, created_at}.',
  args: { ...messageFields, to: agentIdArg.describe('The active member (agt_…) to write to.') },
  mutates: true,
  handler: async (ctx, { to, ...input }, m) => appendFromTool(ctx, m, { ...input, addressedTo: to }),
});

const proposalCreate = memberTool({
  name: 'proposal_create',
  description:
    'Propose something to the campaign (a plan, a change, a conclusion). It stays OPEN for responses (proposal_respond) until a coordinator records a decision (decision_record). Returns {proposal_id, status}.',
  args: {
    title: titleArg.describe('A short title (up to 200 characters).'),
    content: messageContentArg,
    task_id: taskLinkArg.optional(),
  },
  mutates: true,
  handler: async (ctx, input, m) => createProposal(ctx.ex, m, input, ctx.clock.now()),
});

const proposalRespond = memberTool({
  name: 'proposal_respond',
  description:
    'Respond to an OPEN proposal you can see: SUPPORT, OBJECT or COMMENT, with your reasons. A decided proposal takes no more responses.',
  args: {
    proposal_id: messageIdArg.describe('The proposal (msg_…).'),
    response: z.enum(['SUPPORT', 'OBJECT', 'COMMENT']),
    content: messageContentArg,
  },
  mutates: true,
  handler: async (ctx, input, m) => respondToProposal(ctx.ex, m, input, ctx.clock.now()),
});

const decisionRecord = memberTool({
  name: 'decision_record',
  description:
    'Record a decision (coordinators only): ACCEPTED, REJECTED or NOTED, with its reasons. With proposal_id it decides that OPEN proposal, whose status becomes the outcome. Returns {decision_id, outcome, proposal_status}.',
  args: {
    content: messageContentArg,
    outcome: z.enum(['ACCEPTED', 'REJECTED', 'NOTED']),
    proposal_id: messageIdArg.describe('The OPEN proposal this decides (msg_…), if any.').optional(),
    task_id: taskLinkArg.optional(),
  },
  mutates: true,
  audience: COORDINATORS,
  handler: async (ctx, input, m) => recordDecision(ctx.ex, m, input, ctx.clock.now()),
});

export { decisionRecord, messageAppend, messageSend, proposalCreate, proposalRespond };
