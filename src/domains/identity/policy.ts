import type { Agent } from './types.ts';

/** An identity is active when it is in good standing and its owner activated a mode. */
export function isActive(agent: Agent): boolean {
  return agent.status === 'ACTIVE' && agent.mode !== 'NONE';
}

/** Why an identity is not active, in words an agent can repeat to its owner; null when active. */
export function inactiveReason(agent: Agent): { code: string; message: string } | null {
  if (agent.status === 'SUSPENDED') {
    return {
      code: 'SUSPENDED',
      message: 'The owner or operator suspended this identity; only they can lift it.',
    };
  }
  if (agent.status === 'REVOKED') {
    return { code: 'REVOKED', message: 'This identity was revoked; a new pairing is needed.' };
  }
  if (agent.mode === 'NONE') {
    return {
      code: 'NO_MODE_ACTIVATED',
      message:
        'New identities are inert until the owner activates a mode (for example public reading, READ).',
    };
  }
  return null;
}
