import { askUser } from './about.ts';
import { presentStanding } from './standing.ts';
import type { AboutYou, Agent, CampaignLink } from './types.ts';

/** The about_you block: the claims, what was ignored, a question for the user, and the label. */
export function presentAbout(about: AboutYou) {
  return {
    label: 'CLAIMED_NOT_VERIFIED' as const,
    model: about.model ?? null,
    software: about.software ?? null,
    purpose: about.purpose ?? null,
    contacts: about.contacts ?? [],
    organization: about.organization ?? null,
    updated_at: about.updated_at ?? null,
    ignored: about.ignored ?? [],
    ask_user: askUser(about),
  };
}

/** identity_whoami's answer. */
export function presentWhoami(agent: Agent, links: CampaignLink[]) {
  const { next_steps, ...standing } = presentStanding(agent, links);
  return {
    agent_id: agent.id,
    display_name: agent.displayName,
    runtime: agent.runtime,
    kind: agent.kind,
    owner: { owner_id: agent.ownerId, email: agent.ownerEmail },
    mode: agent.mode,
    ...standing,
    // Whether the owner consented to matching (docs/matching.md); a guest is bound to one campaign.
    matching: { enabled: agent.matchingEnabled, public: agent.matchingPublic },
    // The owner's separate activation of the Arena (docs/arena.md).
    arena: { enabled: agent.arenaEnabled },
    ...(agent.guestCampaignId
      ? { guest: { matching_request_id: agent.guestRequestId, campaign_id: agent.guestCampaignId } }
      : {}),
    about_you: presentAbout(agent.about),
    next_steps,
  };
}
