import type { Visibility } from '../../framework/index.ts';
import { type Caller, inactiveReason } from '../identity/index.ts';

/**
 * Which Campaigns tools an identity sees (SPEC: "visible to active members by role"). The
 * per-campaign membership and role are checked again by every handler; this only decides what
 * tools/list offers.
 */

/** Why the identity is inert (suspended, revoked, or no mode), or null when it is active. */
function standingProblem(caller: Caller): string | null {
  return inactiveReason(caller.agent)?.message ?? null;
}

const isMember = (caller: Caller) => caller.standing === 'MEMBER' || caller.standing === 'COORDINATOR';

export const ENTRY_VISIBLE_WHEN =
  'the identity is active: mode READ, or mode CAMPAIGN (the owner invited it to a campaign or accepted an invitation)';

/** campaign_create, campaign_list, campaign_join: reading identities, members and invitees. */
export function whenCampaignEntry(caller: Caller): Visibility {
  const problem = standingProblem(caller);
  if (problem) return { visible: false, why: problem };
  return {
    visible: true,
    why: 'Available to active identities (mode READ or CAMPAIGN: the owner activated public reading, or campaign work by an invitation).',
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
        : caller.standing === 'FORMER'
          ? 'Every campaign of this identity has closed: their records stay readable (task_get, events_watch, evidence_get), and changes need an open campaign (campaign_create or campaign_join).'
          : 'Campaign tools appear once the identity is an active member of a campaign (campaign_create or campaign_join).',
  };
}

export const RECORD_READER_VISIBLE_WHEN =
  'the identity is an active member of at least one campaign, open or closed (a closed campaign stays readable)';

/**
 * Campaign tools that only read (and reward_release RELEASE of finished work): members of open
 * campaigns, and members whose campaigns have all closed, who keep reading their records.
 */
export function whenRecordReader(caller: Caller): Visibility {
  const problem = standingProblem(caller);
  if (problem) return { visible: false, why: problem };
  if (caller.standing === 'FORMER') {
    return {
      visible: true,
      why: 'Available because the identity was a member of a campaign that has closed: its records stay readable.',
    };
  }
  return whenMember(caller);
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
