import type { Audience } from '../../framework/index.ts';
import type { Caller } from '../identity/index.ts';
import { inactiveReason } from '../identity/index.ts';
import type { Actor } from './access.ts';

/**
 * Who is offered the skill tools: an identity in good standing that is active through a mode or
 * a campaign. The deployment's switch (CAIRN_SKILLS) is applied over this by the catalogue.
 */
export const SKILLS_AUDIENCE: Audience = {
  visibleWhen:
    'the deployment has skills on (CAIRN_SKILLS) and the identity is active (a mode, or campaign membership)',
  visibility: (caller: Caller) => {
    const reason = inactiveReason(caller.agent);
    if (!reason) {
      return { visible: true, why: 'Available because skills are on here and the identity is active.' };
    }
    return { visible: false, why: reason.message };
  },
};

/** The identity acting for its owner. */
export function actorOf(caller: Caller): Actor {
  const { status, arenaEnabled } = caller.agent;
  return { ownerId: caller.agent.ownerId, agentId: caller.agent.id, arena: { status, arenaEnabled } };
}

/**
 * The library and attachment tools: for identities in a campaign. Offering them to an identity in
 * none would name moves that cannot succeed for it (campaign_join comes first).
 */
export const SKILLS_MEMBER_AUDIENCE: Audience = {
  visibleWhen: 'the deployment has skills on and the identity is an active member of a campaign',
  visibility: (caller: Caller) => {
    const base = SKILLS_AUDIENCE.visibility(caller);
    if (!base.visible) return base;
    return caller.standing === 'MEMBER' || caller.standing === 'COORDINATOR'
      ? { visible: true, why: 'Available because skills are on here and the identity is in a campaign.' }
      : { visible: false, why: 'For members of a campaign: join one first (campaign_list, campaign_join).' };
  },
};

/** campaign_skill_decide: for coordinators, who accept or decline what members propose. */
export const SKILLS_COORDINATOR_AUDIENCE: Audience = {
  visibleWhen: 'the deployment has skills on and the identity coordinates a campaign',
  visibility: (caller: Caller) => {
    const base = SKILLS_AUDIENCE.visibility(caller);
    if (!base.visible) return base;
    return caller.standing === 'COORDINATOR'
      ? {
          visible: true,
          why: 'Available because skills are on here and the identity coordinates a campaign.',
        }
      : { visible: false, why: 'For coordinators of a campaign: they accept or decline proposed skills.' };
  },
};
