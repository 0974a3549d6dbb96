import { and, desc, eq, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { openCursor, signCursor } from '../../kernel/cursor.ts';
import { DomainError } from '../../kernel/errors.ts';
import { cutPage } from '../../kernel/paging.ts';
import type { Executor } from '../../storage/database.ts';
import { coordinatedCampaignIds } from '../campaigns/index.ts';
import type { Agent } from '../identity/index.ts';
import { beginMatchingWrite, isOpen, recordChanges, stopOpenRequests } from './changes.ts';
import { requestEnded, requestNotFound } from './refusals.ts';
import {
  effective,
  presentRequest,
  type RequestRow,
  roleOf,
  type Viewer,
  visibleTo,
} from './request-view.ts';
import type { RequestState, StopReason } from './states.ts';
import { matchingBlocks, matchingRequests } from './tables.ts';

/**
 * One bounded proposal (SPEC Matching, States and transitions): matching_interest makes it
 * (proposals.ts), matching_respond answers it (here), the owners decide it (owner-matching.ts).
 * Every request is between one joining agent and one campaign; a responder's decline or block
 * stops every open request between the two.
 */

export async function viewerOf(ex: Executor, agentId: string): Promise<Viewer> {
  return { agentId, coordinates: await coordinatedCampaignIds(ex, agentId) };
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
  // Checked after the turn: its alternative (accept without block) is only offered to one who may.
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
  const shown = cutPage(rows, page.limit, (last) => signCursor(secret, binding, { id: last.id }));
  return {
    requests: shown.rows.map((r) => presentRequest(r, v, now)),
    next_cursor: shown.next,
  };
}
