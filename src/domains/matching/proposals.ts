import { and, eq, gt, inArray, type SQL, sql } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Executor } from '../../storage/database.ts';
import { campaignForMatching, coordinatedCampaignIds, isActiveMember } from '../campaigns/index.ts';
import { type Agent, findAgent } from '../identity/index.ts';
import { beginMatchingWrite, expireRequests, recordChanges } from './changes.ts';
import { liveIntent } from './intents.ts';
import { MATCHING_LIMITS } from './limits.ts';
import { intentNotFound } from './refusals.ts';
import { presentRequest } from './request-view.ts';
import { viewerOf } from './requests.ts';
import { matchingBlocks, matchingIntents, matchingRequests } from './tables.ts';

/**
 * matching_interest (SPEC Matching): one bounded proposal to a campaign's call (an application)
 * or to an agent's profile (an invitation), at most one open per requester and target, and at
 * most MAX_OPEN open per requester. Answering and deciding it are requests.ts and owner-matching.ts.
 */

/** How long a request stays open before it expires (docs/matching.md). */
export const REQUEST_TTL_HOURS = MATCHING_LIMITS.request.expiryHours;
const MAX_OPEN = MATCHING_LIMITS.request.maxOpenPerRequester;

/** matching_interest: a request to the intent's agent or campaign, about the campaign of `task_ref`. */
export async function proposeInterest(
  ex: Executor,
  agent: Agent,
  input: { intentId: string; reason: string; taskRef: string },
  now: Date,
) {
  await beginMatchingWrite(ex);
  const intent = await liveIntent(ex, eq(matchingIntents.id, input.intentId), now);
  if (!intent) throw intentNotFound(input.intentId);
  let campaignId: string;
  let joiner: { id: string; ownerId: string };
  let targetKey: string;
  if (intent.kind === 'APPLICATION') {
    if (input.taskRef !== intent.applicationRef) {
      throw new DomainError(
        'VALIDATION_FAILED',
        "task_ref must be this intent's application_ref (matching_list shows it beside the intent).",
        {
          detail: [{ loc: ['task_ref'], msg: 'not the application_ref of this intent', type: 'value_error' }],
        },
        {
          alternatives: [
            {
              tool: 'matching_interest',
              action: 'Propose with the intent’s own application_ref.',
              arguments: { intent_id: intent.id, task_ref: intent.applicationRef },
            },
          ],
        },
      );
    }
    campaignId = intent.campaignId as string;
    joiner = { id: agent.id, ownerId: agent.ownerId };
    targetKey = campaignId;
  } else {
    if (intent.agentId === agent.id) {
      throw new DomainError(
        'CONFLICT',
        'That is your own profile.',
        { intent_id: intent.id },
        {
          next: 'Pick another intent from matching_list.',
          alternatives: [{ tool: 'matching_list', action: 'List the other intents.' }],
        },
      );
    }
    // An invitation: the caller offers the profile's agent a place in a campaign it coordinates.
    const application = await liveIntent(
      ex,
      and(eq(matchingIntents.applicationRef, input.taskRef), eq(matchingIntents.kind, 'APPLICATION')) as SQL,
      now,
    );
    const coordinates = await coordinatedCampaignIds(ex, agent.id);
    if (!application || !coordinates.includes(application.campaignId as string)) {
      throw new DomainError(
        'NOT_FOUND',
        'To propose to a profile, task_ref must be the application_ref of an open call of a campaign you coordinate.',
        { task_ref: input.taskRef },
        {
          next: 'Ask the owner of a campaign you coordinate to open it to applications (console), then use its application_ref; or propose to a campaign’s call instead.',
          alternatives: [{ tool: 'matching_list', action: 'Find a campaign that takes applications.' }],
        },
      );
    }
    const target = await findAgent(ex, intent.agentId as string);
    if (!target) throw intentNotFound(input.intentId);
    campaignId = application.campaignId as string;
    joiner = { id: target.id, ownerId: target.ownerId };
    targetKey = target.id;
  }
  if (await isActiveMember(ex, campaignId, joiner.id)) {
    throw new DomainError(
      'CONFLICT',
      joiner.id === agent.id
        ? 'You are already a member of that campaign.'
        : 'That agent is already a member of the campaign.',
      { intent_id: intent.id },
      { alternatives: [{ tool: 'matching_list', action: 'Look for another intent.' }] },
    );
  }
  const [blocked] = await ex
    .select({ at: matchingBlocks.createdAt })
    .from(matchingBlocks)
    .where(and(eq(matchingBlocks.campaignId, campaignId), eq(matchingBlocks.agentId, joiner.id)));
  if (blocked) {
    throw new DomainError('MATCHING_BLOCKED', 'A block stands between that agent and that campaign.', {
      intent_id: intent.id,
    });
  }
  // Bounded: a requester keeps at most MAX_OPEN requests open at once (expired ones do not count).
  const [open] = await ex
    .select({ n: sql<number>`count(*)::int` })
    .from(matchingRequests)
    .where(
      and(
        eq(matchingRequests.requesterAgentId, agent.id),
        inArray(matchingRequests.state, ['PROPOSED', 'TENTATIVE']),
        gt(matchingRequests.expiresAt, now),
      ),
    );
  if ((open?.n ?? 0) >= MAX_OPEN) {
    throw new DomainError(
      'CONFLICT',
      `You have ${MAX_OPEN} open matching requests, the most at once; wait for answers or withdraw one.`,
      { open_requests: open?.n ?? 0, max_open: MAX_OPEN },
      {
        alternatives: [
          { tool: 'matching_requests', action: 'See your open requests.', arguments: { state: 'PROPOSED' } },
          { tool: 'matching_watch', action: 'Wait for answers.' },
        ],
      },
    );
  }
  const mine = and(
    eq(matchingRequests.requesterAgentId, agent.id),
    eq(matchingRequests.targetKey, targetKey),
  );
  await expireRequests(ex, mine as SQL, now);
  const [inserted] = await ex
    .insert(matchingRequests)
    .values({
      id: newId('mreq', now),
      intentId: intent.id,
      intentKind: intent.kind,
      intentAlias: intent.alias,
      intentTopic: intent.topic,
      applicationRef: input.taskRef,
      campaignId,
      campaignOwnerId: await campaignOwnerOf(ex, campaignId),
      requesterAgentId: agent.id,
      targetKey,
      targetAgentId: intent.kind === 'PROFILE' ? targetKey : null,
      joinerAgentId: joiner.id,
      joinerOwnerId: joiner.ownerId,
      reason: input.reason,
      state: 'PROPOSED',
      waitingFor: 'RESPONDER',
      createdAt: now,
      updatedAt: now,
      expiresAt: new Date(now.getTime() + REQUEST_TTL_HOURS * 3_600_000),
    })
    .onConflictDoNothing()
    .returning();
  if (!inserted) {
    const [open] = await ex
      .select({ id: matchingRequests.id })
      .from(matchingRequests)
      .where(and(mine, inArray(matchingRequests.state, ['PROPOSED', 'TENTATIVE'])));
    throw new DomainError(
      'MATCHING_REQUEST_OPEN',
      'You already have an open request to that target; one at a time.',
      { matching_request_id: open?.id ?? null },
      {
        alternatives: open
          ? [
              {
                tool: 'matching_get',
                action: 'Follow the open request.',
                arguments: { matching_request_id: open.id },
              },
              {
                tool: 'matching_respond',
                action: 'Withdraw it first.',
                arguments: { matching_request_id: open.id, decision: 'DECLINE' },
              },
            ]
          : undefined,
      },
    );
  }
  await recordChanges(ex, [{ requestId: inserted.id, state: 'PROPOSED' }], now);
  return presentRequest(inserted, await viewerOf(ex, agent.id), now);
}

async function campaignOwnerOf(ex: Executor, campaignId: string): Promise<string> {
  const campaign = await campaignForMatching(ex, campaignId);
  if (!campaign) throw new Error(`campaign ${campaignId} of a live intent vanished`);
  return campaign.ownerId;
}
