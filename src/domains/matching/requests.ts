import { and, desc, eq, gt, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { openCursor, signCursor } from '../../kernel/cursor.ts';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { LIMITS } from '../../kernel/limits.ts';
import type { Executor } from '../../storage/database.ts';
import { campaignForMatching, coordinatedCampaignIds, isActiveMember } from '../campaigns/index.ts';
import { type Agent, findAgent } from '../identity/index.ts';
import { beginMatchingWrite, expireRequests, isOpen, recordChanges, stopOpenRequests } from './changes.ts';
import { liveIntent } from './intents.ts';
import { intentNotFound, requestEnded, requestNotFound } from './refusals.ts';
import {
  effective,
  presentRequest,
  type RequestRow,
  roleOf,
  type Viewer,
  visibleTo,
} from './request-view.ts';
import type { RequestState, StopReason } from './states.ts';
import { matchingBlocks, matchingIntents, matchingRequests } from './tables.ts';

/**
 * One bounded proposal (SPEC Matching, States and transitions): matching_interest makes it,
 * matching_respond answers it, the owners decide it (owner-decisions.ts). Every request is between
 * one joining agent and one campaign; a decline, withdrawal or block stops every open request
 * between the two.
 */

/** How long a request stays open before it expires (docs/matching.md). */
export const REQUEST_TTL_HOURS = LIMITS.matchingRequest.expiryHours;
const MAX_OPEN = LIMITS.matchingRequest.maxOpenPerRequester;

export async function viewerOf(ex: Executor, agentId: string): Promise<Viewer> {
  return { agentId, coordinates: await coordinatedCampaignIds(ex, agentId) };
}

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

/** A request the viewer is a party to, locked when `forUpdate`; NOT_FOUND otherwise. */
export async function requestFor(ex: Executor, v: Viewer, requestId: string, forUpdate = false) {
  const query = ex
    .select()
    .from(matchingRequests)
    .where(and(eq(matchingRequests.id, requestId), visibleTo(v)));
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw requestNotFound(requestId);
  return row;
}

/**
 * matching_respond. The responder (the profile's agent, or a coordinator of the campaign) accepts
 * or declines a PROPOSED request; the requester may only decline, which withdraws it. A decline
 * stops every open request between the joining agent and the campaign; with `block`, none is made
 * again.
 */
export async function respond(
  ex: Executor,
  agent: Agent,
  input: {
    requestId: string;
    decision: 'ACCEPT' | 'DECLINE';
    responseReason?: string | undefined;
    block?: boolean | undefined;
  },
  now: Date,
) {
  await beginMatchingWrite(ex);
  const v = await viewerOf(ex, agent.id);
  const row = await requestFor(ex, v, input.requestId, true);
  const e = effective(row, now);
  if (!isOpen(e.state)) throw requestEnded(row.id, e.state, e.stopReason);
  const role = roleOf(row, v);
  const turn = (waitingFor: string) =>
    new DomainError(
      'MATCHING_NOT_YOUR_TURN',
      role === 'REQUESTER' && input.decision === 'ACCEPT'
        ? 'You made this request; the other side accepts it. You may only withdraw it (DECLINE).'
        : 'It is not your turn on this request.',
      { matching_request_id: row.id, waiting_for: waitingFor, your_role: role },
      {
        alternatives: [
          { tool: 'matching_watch', action: 'Wait for the decision.' },
          ...(role === 'REQUESTER'
            ? [
                {
                  tool: 'matching_respond',
                  action: 'Withdraw the request.',
                  arguments: { matching_request_id: row.id, decision: 'DECLINE' },
                },
              ]
            : []),
        ],
      },
    );
  if (input.block && input.decision !== 'DECLINE') {
    throw new DomainError(
      'VALIDATION_FAILED',
      'block goes with DECLINE only.',
      { detail: [{ loc: ['block'], msg: 'block needs decision DECLINE', type: 'value_error' }] },
      {
        alternatives: [
          {
            tool: 'matching_respond',
            action: 'Accept without block.',
            arguments: { matching_request_id: row.id, decision: 'ACCEPT' },
          },
        ],
      },
    );
  }
  if (role === 'REQUESTER') {
    if (input.decision === 'ACCEPT') throw turn(e.waitingFor ?? 'RESPONDER');
    if (input.block) {
      throw new DomainError(
        'VALIDATION_FAILED',
        'A block is the responder’s: you may withdraw your own request (DECLINE without block).',
        { detail: [{ loc: ['block'], msg: 'only the responder blocks', type: 'value_error' }] },
        {
          alternatives: [
            {
              tool: 'matching_respond',
              action: 'Withdraw the request.',
              arguments: { matching_request_id: row.id, decision: 'DECLINE' },
            },
          ],
        },
      );
    }
  } else if (role !== 'RESPONDER' || e.state !== 'PROPOSED') {
    throw turn(e.waitingFor ?? 'RESPONDER');
  }
  const answered = {
    responseReason: input.responseReason ?? row.responseReason,
    respondedBy: agent.id,
    updatedAt: now,
  };
  if (input.decision === 'ACCEPT') {
    const [updated] = await ex
      .update(matchingRequests)
      .set({ ...answered, state: 'TENTATIVE', waitingFor: 'CAMPAIGN_OWNER' })
      .where(eq(matchingRequests.id, row.id))
      .returning();
    await recordChanges(ex, [{ requestId: row.id, state: 'TENTATIVE' }], now);
    return presentRequest(updated as RequestRow, v, now);
  }
  const reason: StopReason = input.block ? 'BLOCKED' : role === 'REQUESTER' ? 'WITHDRAWN' : 'DECLINED';
  await ex.update(matchingRequests).set(answered).where(eq(matchingRequests.id, row.id));
  if (input.block) {
    await ex
      .insert(matchingBlocks)
      .values({ campaignId: row.campaignId, agentId: row.joinerAgentId, blockedBy: agent.id, createdAt: now })
      .onConflictDoNothing();
  }
  // A withdrawal ends the requester's own request; a responder's decline (or block) ends every
  // open request between the joining agent and the campaign.
  const stopped =
    role === 'REQUESTER'
      ? await stopOpenRequests(ex, eq(matchingRequests.id, row.id), reason, now)
      : await stopBetween(ex, row, reason, now);
  const others = stopped.filter((id) => id !== row.id);
  const shown = others.length
    ? await ex
        .select({ id: matchingRequests.id })
        .from(matchingRequests)
        .where(and(inArray(matchingRequests.id, others), visibleTo(v)))
    : [];
  const [after] = await ex.select().from(matchingRequests).where(eq(matchingRequests.id, row.id));
  return {
    ...presentRequest(after as RequestRow, v, now),
    // Only those the caller may see; the others ended too, for their own parties to find.
    also_stopped: shown.map((r) => r.id),
  };
}

/** Stops every open request between the request's joining agent and its campaign. */
export function stopBetween(ex: Executor, row: RequestRow, reason: StopReason, now: Date) {
  return stopOpenRequests(
    ex,
    and(
      eq(matchingRequests.campaignId, row.campaignId),
      eq(matchingRequests.joinerAgentId, row.joinerAgentId),
    ) as SQL,
    reason,
    now,
  );
}

/** matching_requests: the viewer's requests, newest first, optionally by state; a signed cursor. */
export async function listRequests(
  ex: Executor,
  secret: string,
  v: Viewer,
  page: { state?: RequestState | undefined; limit: number; cursor?: string | undefined },
  now: Date,
) {
  const binding = `matching-requests:${v.agentId}:${page.state ?? ''}`;
  const position = page.cursor ? openCursor<{ id?: unknown }>(secret, binding, page.cursor) : null;
  if (position && typeof position.id !== 'string') {
    throw new DomainError('CURSOR_INVALID', 'That is not a matching cursor.', {});
  }
  // The state filter is on the effective state: an open request past its expiry counts as STOPPED.
  const stateCondition =
    page.state === undefined
      ? undefined
      : page.state === 'STOPPED'
        ? sql`(${matchingRequests.state} = 'STOPPED' or (${matchingRequests.state} in ('PROPOSED', 'TENTATIVE') and ${matchingRequests.expiresAt} <= ${now}))`
        : page.state === 'JOINED'
          ? eq(matchingRequests.state, 'JOINED')
          : sql`${matchingRequests.state} = ${page.state} and ${matchingRequests.expiresAt} > ${now}`;
  const rows = await ex
    .select()
    .from(matchingRequests)
    .where(
      and(
        visibleTo(v),
        stateCondition,
        position ? lt(matchingRequests.id, position.id as string) : undefined,
      ),
    )
    .orderBy(desc(matchingRequests.id))
    .limit(page.limit + 1);
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    requests: shown.map((r) => presentRequest(r, v, now)),
    next_cursor: rows.length > page.limit && last ? signCursor(secret, binding, { id: last.id }) : null,
  };
}
