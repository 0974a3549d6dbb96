import type { Audience } from '../../framework/index.ts';
import { type Agent, type Caller, inactiveReason } from '../identity/index.ts';

/** Who is offered the matching tools: an active identity whose owner turned matching on. */

/** Why the identity may not use matching now, or null when it may. */
export function consentMissing(agent: Agent): string | null {
  const reason = inactiveReason(agent);
  if (reason) return reason.message;
  if (!agent.matchingEnabled) {
    return 'Matching needs the owner’s consent: the owner turns it on for this identity in the console (or POST /v1/agents/{agent_id}/matching).';
  }
  return null;
}

export const MATCHING_AUDIENCE: Audience = {
  visibleWhen:
    'the identity is active and its owner turned matching on for it (console, or POST /v1/agents/{agent_id}/matching)',
  visibility: (caller: Caller) => {
    const missing = consentMissing(caller.agent);
    return missing
      ? { visible: false, why: missing }
      : { visible: true, why: 'Available because the owner turned matching on for this identity.' };
  },
};
