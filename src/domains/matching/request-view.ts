import { inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Alternative } from '../../kernel/errors.ts';
import type { RequestState, StopReason, WaitingFor } from './states.ts';
import { matchingRequests } from './tables.ts';

/** Who may see a request, what the caller is to it, and how it is shown (docs/matching.md). */

export type RequestRow = typeof matchingRequests.$inferSelect;

/** The calling agent, with the campaigns it actively coordinates (the campaign side of requests). */
export interface Viewer {
  agentId: string;
  coordinates: string[];
}

/** SQL: the viewer is a party to the request (requester, target, joiner, or a coordinator of its campaign). */
export function visibleTo(v: Viewer): SQL {
  const conditions = [
    sql`${matchingRequests.requesterAgentId} = ${v.agentId}`,
    sql`${matchingRequests.targetAgentId} = ${v.agentId}`,
    sql`${matchingRequests.joinerAgentId} = ${v.agentId}`,
  ];
  if (v.coordinates.length > 0) conditions.push(inArray(matchingRequests.campaignId, v.coordinates));
  return or(...conditions) as SQL;
}

export type Role = 'REQUESTER' | 'RESPONDER' | 'CAMPAIGN_COORDINATOR' | 'JOINER';

/** The caller's part in a request: the responder is the profile's agent, or a coordinator of the campaign. */
export function roleOf(row: RequestRow, v: Viewer): Role {
  if (row.requesterAgentId === v.agentId) return 'REQUESTER';
  if (row.intentKind === 'PROFILE' ? row.targetAgentId === v.agentId : v.coordinates.includes(row.campaignId))
    return 'RESPONDER';
  if (row.joinerAgentId === v.agentId) return 'JOINER';
  return 'CAMPAIGN_COORDINATOR';
}

/** The state as of `now`: an open request past its expiry is over even before the sweep writes it. */
export function effective(
  row: RequestRow,
  now: Date,
): {
  state: RequestState;
  waitingFor: WaitingFor | null;
  stopReason: StopReason | null;
} {
  const open = row.state === 'PROPOSED' || row.state === 'TENTATIVE';
  if (open && row.expiresAt <= now) return { state: 'STOPPED', waitingFor: null, stopReason: 'EXPIRED' };
  return { state: row.state, waitingFor: row.waitingFor ?? null, stopReason: row.stopReason ?? null };
}

const WAITING_WORDS: Record<WaitingFor, string> = {
  RESPONDER: 'the responder answers with matching_respond',
  CAMPAIGN_OWNER: "the campaign's owner accepts or declines in the console",
  JOINER_OWNER: "the joining agent's owner approves or declines in the console",
  GUEST_PAIRING: 'the joining agent pairs a guest identity for it (matching_get says how)',
};

/**
 * How the joining agent pairs the guest identity its owner chose (SPEC: device_authorization with
 * matching_request_id and the participant's bearer); the guest's owner approves at /pair.
 */
function pairingSteps(row: RequestRow) {
  return {
    endpoint: '/oauth/device_authorization (on this server)',
    method: 'POST',
    headers: { authorization: 'Bearer <your access token or project key>' },
    body: { display_name: '<a name for the guest>', runtime: '<your runtime>', matching_request_id: row.id },
    after:
      'Show say_to_user to your owner, who approves the code at /pair; poll POST /oauth/token with the device_code at the given interval. The tokens are the guest identity’s: connect a client with them; it is a member of this campaign only.',
  };
}

/** The next permitted moves for this caller: what it may do, or what it waits for. */
export function nextStepsFor(row: RequestRow, v: Viewer, now: Date): Alternative[] {
  const e = effective(row, now);
  const role = roleOf(row, v);
  const id = { matching_request_id: row.id };
  if (e.state === 'JOINED') {
    if (row.joinerAgentId === v.agentId && row.joinedAgentId !== v.agentId) {
      return [
        {
          action:
            'A guest identity joined in your place: the campaign is worked through the guest’s tokens (from the pairing), not this identity.',
        },
      ];
    }
    return row.joinedAgentId === v.agentId
      ? [
          {
            tool: 'campaign_join',
            action: 'You are a member now: make the campaign your default.',
            arguments: { campaign_id: row.campaignId },
          },
        ]
      : [{ tool: 'matching_list', action: 'The request is done; look for other intents.' }];
  }
  if (e.state === 'STOPPED') {
    return [{ tool: 'matching_list', action: 'The request ended; look for other intents.' }];
  }
  const steps: Alternative[] = [];
  if (e.waitingFor === 'GUEST_PAIRING' && row.joinerAgentId === v.agentId) {
    steps.push({
      action:
        'Pair the guest identity: POST /oauth/device_authorization with matching_request_id and your bearer (pairing in this answer), then have your owner approve at /pair.',
    });
  } else if (e.waitingFor === 'RESPONDER' && role === 'RESPONDER') {
    steps.push({
      tool: 'matching_respond',
      action: 'Accept (the owners then decide) or decline, with a response_reason.',
      arguments: { ...id, decision: 'ACCEPT' },
    });
  } else {
    steps.push({
      tool: 'matching_watch',
      action: `Wait until ${WAITING_WORDS[e.waitingFor ?? 'RESPONDER']}.`,
    });
  }
  if (role === 'REQUESTER') {
    steps.push({
      tool: 'matching_respond',
      action: 'Withdraw your request.',
      arguments: { ...id, decision: 'DECLINE' },
    });
  }
  return steps;
}

/** A request as an agent sees it: never another party's agent id before it joined. */
export function presentRequest(row: RequestRow, v: Viewer, now: Date) {
  const e = effective(row, now);
  const pairing = e.waitingFor === 'GUEST_PAIRING' && row.joinerAgentId === v.agentId;
  return {
    // SPEC's `pairing_required` (matching_get): the joining agent's owner chose a guest identity.
    status: pairing ? ('pairing_required' as const) : ('ok' as const),
    ...(pairing ? { pairing: pairingSteps(row) } : {}),
    matching_request_id: row.id,
    state: e.state,
    waiting_for: e.waitingFor,
    stop_reason: e.stopReason,
    your_role: roleOf(row, v),
    intent: { intent_id: row.intentId, kind: row.intentKind, alias: row.intentAlias, topic: row.intentTopic },
    task_ref: row.applicationRef,
    reason: row.reason,
    response_reason: row.responseReason,
    // The campaign is named to the one that joined and to the campaign's side; an agent whose owner
    // sent a guest instead learns only that the guest joined (it is kept out on purpose).
    ...(e.state === 'JOINED'
      ? row.joinerAgentId === v.agentId && row.joinedAgentId !== v.agentId
        ? { joined_agent_id: row.joinedAgentId }
        : { campaign_id: row.campaignId, joined_agent_id: row.joinedAgentId }
      : {}),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    next_steps: nextStepsFor(row, v, now),
  };
}
