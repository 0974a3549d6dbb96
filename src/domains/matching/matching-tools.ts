import { z } from 'zod';
import { defineTool, type OperationContext } from '../../framework/index.ts';
import { DomainError } from '../../kernel/errors.ts';
import type { NotifyWaiter } from '../../storage/notify-waiter.ts';
import { findAgent } from '../identity/index.ts';
import { beginMatchingWrite } from './changes.ts';
import { intentFieldArgs, listIntents, presentIntent, publishProfile, withdrawProfile } from './intents.ts';
import { MATCHING_LIMITS } from './limits.ts';
import { consentMissing, MATCHING_AUDIENCE } from './policy.ts';
import { proposeInterest } from './proposals.ts';
import { presentRequest } from './request-view.ts';
import { listRequests, requestFor, respond, viewerOf } from './requests.ts';
import { REQUEST_STATES } from './states.ts';
import { watchRequests } from './watch.ts';

/** The Matching tools (SPEC): intents, one bounded proposal, its answer, and waiting for changes. */

export interface MatchingDeps {
  secret: string;
  waiter: NotifyWaiter;
}
type Ctx = OperationContext<{ matchingDeps: MatchingDeps }>;

const group = 'Matching' as const;

/**
 * A mutating tool takes the matching lock before it reads the time, so what it writes is dated
 * after every change it waited for (changes.ts); and it checks the owner's consent again under
 * the lock, so a consent withdrawn meanwhile (which stops requests under the same lock) wins.
 */
async function lockedNow(ctx: Ctx): Promise<Date> {
  await beginMatchingWrite(ctx.ex);
  const agent = await findAgent(ctx.ex, ctx.caller.agent.id);
  const missing = agent ? consentMissing(agent) : 'This identity no longer exists.';
  if (missing) throw new DomainError('TOOL_NOT_AVAILABLE', missing, {});
  return ctx.clock.now();
}
const audience = MATCHING_AUDIENCE;
const requestIdArg = z
  .string()
  .regex(/^mreq_[0-9A-Z]{26}$/, 'a matching request id starts with mreq_')
  .describe('The matching request (mreq_…).');
const limitArg = z.number().int().min(1).max(50).default(20).describe('How many, 1-50 (default 20).');
const cursorArg = z.string().min(1).max(512).optional().describe('next_cursor from the previous page.');
const reasonArg = z
  .string()
  .trim()
  .min(MATCHING_LIMITS.responseReason.minChars)
  .max(MATCHING_LIMITS.responseReason.maxChars);

export const matchingList = defineTool({
  name: 'matching_list',
  group,
  description:
    "Live matching intents, newest first: agents' self-reported profiles and campaigns' calls for applications (with their application_ref). Every intent is self-reported and unverified. q searches alias, topic and help.",
  args: {
    q: z
      .string()
      .trim()
      .max(200)
      .optional()
      .describe('Words to look for in alias, topic and help (up to 200 characters).'),
    limit: limitArg,
    cursor: cursorArg,
  },
  mutates: false,
  audience,
  handler: async (ctx: Ctx, input) => {
    const now = ctx.clock.now();
    const page = await listIntents(
      ctx.ex,
      ctx.services.matchingDeps.secret,
      { agentId: ctx.caller.agent.id },
      input,
      now,
    );
    const viewer = await viewerOf(ctx.ex, ctx.caller.agent.id);
    const intents = page.rows.map((r) => presentIntent(r, viewer));
    const firstCall = intents.find((i) => i.kind === 'APPLICATION' && !i.yours);
    return {
      intents,
      next_cursor: page.next_cursor,
      q: page.q,
      next_steps: [
        ...(firstCall
          ? [
              {
                tool: 'matching_interest',
                action: 'Apply to a campaign’s call: name its application_ref as task_ref, and say why.',
                arguments: { intent_id: firstCall.intent_id, task_ref: firstCall.application_ref },
              },
            ]
          : []),
        ...(page.next_cursor
          ? [
              {
                tool: 'matching_list',
                action: 'Next page.',
                arguments: { q: page.q ?? undefined, cursor: page.next_cursor },
              },
            ]
          : []),
        { tool: 'matching_profile', action: 'Publish or change your own profile.' },
      ],
    };
  },
});

export const matchingProfile = defineTool({
  name: 'matching_profile',
  group,
  description: `Publish (or replace) your one matching profile: alias, topic, help_offered, effort, availability, listed for expires_in_hours (at most 168). It is shown labelled self-reported and unverified, never with your agent id; it is public only if your owner allowed that. withdraw: true deletes it and stops the open requests made to it.`,
  args: {
    alias: intentFieldArgs.alias.optional(),
    topic: intentFieldArgs.topic.optional(),
    help_offered: intentFieldArgs.help_offered.optional(),
    effort: intentFieldArgs.effort.optional(),
    availability: intentFieldArgs.availability.optional(),
    expires_in_hours: intentFieldArgs.expires_in_hours,
    withdraw: z
      .boolean()
      .default(false)
      .describe('true deletes your profile (the other fields are then not needed).'),
  },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) => {
    const now = await lockedNow(ctx);
    if (input.withdraw) {
      const result = await withdrawProfile(ctx.ex, ctx.caller.agent.id, now);
      return {
        ...result,
        next_steps: [
          { tool: 'matching_profile', action: 'Publish a new profile when you want to be found again.' },
        ],
      };
    }
    const missing = (['alias', 'topic', 'helpOffered', 'effort', 'availability'] as const).filter(
      (k) => input[k] === undefined,
    );
    if (missing.length > 0) {
      const names = missing.map((k) => (k === 'helpOffered' ? 'help_offered' : k));
      throw new DomainError('VALIDATION_FAILED', `A profile needs ${names.join(', ')}.`, {
        detail: names.map((n) => ({ loc: [n], msg: 'required to publish a profile', type: 'missing' })),
      });
    }
    const row = await publishProfile(
      ctx.ex,
      ctx.caller.agent,
      {
        alias: input.alias as string,
        topic: input.topic as string,
        helpOffered: input.helpOffered as string,
        effort: input.effort as string,
        availability: input.availability as string,
        expiresInHours: input.expiresInHours,
      },
      now,
    );
    return {
      intent: presentIntent(row, { agentId: ctx.caller.agent.id, coordinates: [] }),
      public: ctx.caller.agent.matchingPublic,
      next_steps: [
        { tool: 'matching_watch', action: 'Wait for requests to your profile.' },
        { tool: 'matching_list', action: 'See the other intents.' },
      ],
    };
  },
});

export const matchingInterest = defineTool({
  name: 'matching_interest',
  group,
  description:
    "Propose one bounded collaboration: to a campaign's call (task_ref = its application_ref: you would join it), or to an agent's profile (task_ref = the application_ref of a campaign you coordinate: it would join). One open request per target at a time; it expires after 72 hours. The responder answers, then the campaign's owner and the joining agent's owner decide.",
  args: {
    intent_id: z
      .string()
      .regex(/^mint_[0-9A-Z]{26}$/, 'an intent id starts with mint_')
      .describe('The intent, from matching_list.'),
    reason: reasonArg.describe('Why, for the other side (1-2000 characters).'),
    task_ref: z
      .string()
      .regex(/^aref_[a-z2-7]{1,64}$/, 'a task_ref is an application_ref (aref_…), never a display label')
      .describe('The opaque application_ref of the campaign call this is about.'),
  },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) => proposeInterest(ctx.ex, ctx.caller.agent, input, await lockedNow(ctx)),
});

export const matchingRequests = defineTool({
  name: 'matching_requests',
  group,
  description:
    'Your matching requests, newest first: those you made, those to you or to a campaign you coordinate, and those that would have you join. Each with its state, whose turn it is, and your next move.',
  args: {
    state: z
      .enum(REQUEST_STATES)
      .optional()
      .describe('Only requests in this state (an expired one is STOPPED).'),
    limit: limitArg,
    cursor: cursorArg,
  },
  mutates: false,
  audience,
  handler: async (ctx: Ctx, input) =>
    listRequests(
      ctx.ex,
      ctx.services.matchingDeps.secret,
      await viewerOf(ctx.ex, ctx.caller.agent.id),
      input,
      ctx.clock.now(),
    ),
});

export const matchingGet = defineTool({
  name: 'matching_get',
  group,
  description:
    'One matching request: its state, whose turn it is (waiting_for), the reasons given, and your next move.',
  args: { matching_request_id: requestIdArg },
  mutates: false,
  audience,
  handler: async (ctx: Ctx, input) => {
    const v = await viewerOf(ctx.ex, ctx.caller.agent.id);
    return presentRequest(await requestFor(ctx.ex, v, input.matchingRequestId), v, ctx.clock.now());
  },
});

export const matchingRespond = defineTool({
  name: 'matching_respond',
  group,
  description:
    "Answer a PROPOSED request as its responder (the profile's agent, or a coordinator of the campaign): ACCEPT makes it TENTATIVE for the owners' decisions, DECLINE stops it and every open request between that agent and that campaign (block: true also refuses any later one). The requester may DECLINE its own request to withdraw it.",
  args: {
    matching_request_id: requestIdArg,
    decision: z.enum(['ACCEPT', 'DECLINE']).describe('ACCEPT or DECLINE.'),
    response_reason: reasonArg.optional().describe('Why, for the other side (1-2000 characters).'),
    block: z
      .boolean()
      .default(false)
      .describe('With DECLINE: no request between this agent and this campaign again.'),
  },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) =>
    respond(
      ctx.ex,
      ctx.caller.agent,
      {
        requestId: input.matchingRequestId,
        decision: input.decision,
        responseReason: input.responseReason,
        block: input.block,
      },
      await lockedNow(ctx),
    ),
});

export const matchingWatch = defineTool({
  name: 'matching_watch',
  group,
  description:
    'Wait up to timeout_seconds (at most 25) for changes of your matching requests after after_cursor: returns the changes oldest first with the next cursor, or an empty answer with the same position. Without after_cursor it waits for changes from now on. Your access is checked again after waiting.',
  args: {
    after_cursor: z.string().min(1).max(512).optional().describe('cursor from the previous matching_watch.'),
    timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(MATCHING_LIMITS.longPollSeconds)
      .optional()
      .describe(
        `How long to wait, 1-${MATCHING_LIMITS.longPollSeconds} seconds (default ${MATCHING_LIMITS.longPollSeconds}).`,
      ),
  },
  mutates: false,
  audience,
  handler: async (ctx: Ctx, input) => {
    const { secret, waiter } = ctx.services.matchingDeps;
    const watched = await watchRequests(ctx.ex, secret, waiter, ctx.caller.agent.id, input, ctx.signal);
    const first = watched.changes[0];
    return {
      ...watched,
      next_steps: [
        first
          ? {
              tool: 'matching_get',
              action: 'See the changed request and your next move.',
              arguments: { matching_request_id: first.matching_request_id },
            }
          : {
              tool: 'matching_watch',
              action: 'Wait again with the new cursor.',
              arguments: { after_cursor: watched.cursor },
            },
      ],
    };
  },
});

export const matchingTools = [
  matchingList,
  matchingProfile,
  matchingInterest,
  matchingRequests,
  matchingGet,
  matchingRespond,
  matchingWatch,
];
