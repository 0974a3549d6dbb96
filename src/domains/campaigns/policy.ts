import type { Caller } from '../identity/index.ts';
import type { Visibility } from '../operations/index.ts';

/**
 * Which Campaigns tools an identity sees (SPEC: "visible to active members by role"). The
 * per-campaign membership and role are checked again by every handler; this only decides what
 * tools/list offers.
 */

function standingProblem(caller: Caller): string | null {
  const { status } = caller.agent;
  if (status === 'SUSPENDED') return 'The owner or operator suspended this identity; only they can lift it.';
  if (status === 'REVOKED') return 'This identity was revoked; a new pairing is needed.';
  return null;
}

const isMember = (caller: Caller) => caller.standing === 'MEMBER' || caller.standing === 'COORDINATOR';

export const ENTRY_VISIBLE_WHEN =
  'the identity is active: mode READ, a campaign member, or invited to a campaign';

/** campaign_create, campaign_list, campaign_join: reading identities, members and invitees. */
export function whenCampaignEntry(caller: Caller): Visibility {
  const problem = standingProblem(caller);
  if (problem) return { visible: false, why: problem };
  if (caller.agent.mode === 'READ' || caller.standing !== 'NONE') {
    return {
      visible: true,
      why: 'Available to active identities (mode READ, campaign members and invitees).',
    };
  }
  return {
    visible: false,
    why: 'Campaigns need an active identity: the owner activates public reading (mode READ) or invites it to a campaign.',
  };
}

export const MEMBER_VISIBLE_WHEN = 'the identity is an active member of at least one campaign';

/** Tools used inside a campaign. */
export function whenMember(caller: Caller): Visibility {
  const problem = standingProblem(caller);
  if (problem) return { visible: false, why: problem };
  if (isMember(caller))
    return { visible: true, why: 'Available because the identity is an active campaign member.' };
  return {
    visible: false,
    why:
      caller.standing === 'INVITED'
        ? 'An invitation waits: accept it with campaign_join to use campaign tools.'
        : 'Campaign tools appear once the identity is an active member of a campaign (campaign_create or campaign_join).',
  };
}

export const COORDINATOR_VISIBLE_WHEN = 'the identity coordinates at least one campaign';

/** Tools only coordinators use (inviting). */
export function whenCoordinator(caller: Caller): Visibility {
  const problem = standingProblem(caller);
  if (problem) return { visible: false, why: problem };
  if (caller.standing === 'COORDINATOR') {
    return { visible: true, why: 'Available because the identity coordinates a campaign.' };
  }
  return {
    visible: false,
    why: 'Only campaign coordinators use this tool (inviting agents, recording decisions); ask a coordinator of your campaign.',
  };
}
