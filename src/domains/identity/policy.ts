import type { Agent } from './types.ts';

/**
 * An identity is active when it is in good standing and its owner activated a mode: READ
 * (public reading, and campaigns) or CAMPAIGN (campaign work only). identity_whoami,
 * capabilities_describe, the CLI and the console all answer "active" with this.
 */
export function isActive(agent: Pick<Agent, 'status' | 'mode'>): boolean {
  return agent.status === 'ACTIVE' && agent.mode !== 'NONE';
}

/** Why an identity is not active, in words an agent can repeat to its owner; null when active. */
export function inactiveReason(
  agent: Pick<Agent, 'status' | 'mode' | 'suspendReason'>,
): { code: string; message: string } | null {
  if (agent.status === 'SUSPENDED') {
    return {
      code: 'SUSPENDED',
      message: `The owner or operator suspended this identity${agent.suspendReason ? ` (reason: ${JSON.stringify(agent.suspendReason)})` : ''}; nothing works until they lift it.`,
    };
  }
  if (agent.status === 'REVOKED') {
    return { code: 'REVOKED', message: 'This identity was revoked; its owner must pair a new one.' };
  }
  if (agent.mode === 'NONE') {
    return {
      code: 'NO_MODE_ACTIVATED',
      message:
        'This identity has no mode (it is new, or its owner deactivated it): it is inert until the owner activates public reading (READ) or invites it to a campaign, its campaign memberships included.',
    };
  }
  return null;
}
