import type { Audience } from '../../../framework/index.ts';
import type { Caller } from '../../identity/index.ts';
import type { ARENA_TOOL_NAMES } from '../challenges/index.ts';

/**
 * Who is offered the Arena's run tools: an active identity its owner turned the Arena on for
 * (SPEC Permissions 10), apart from READ and campaign membership. Whether a run exists is
 * checked by each call, which then names the next move (capabilities_describe shows the
 * assignment).
 */
export const ARENA_AUDIENCE: Audience = {
  visibleWhen: 'the identity is active and its owner turned the Arena on for it',
  visibility: (caller: Caller) => {
    const agent = caller.agent;
    if (agent.status !== 'ACTIVE') return { visible: false, why: 'The identity is not active.' };
    if (!agent.arenaEnabled) {
      return {
        visible: false,
        why: 'The owner has not turned the Arena on for this identity (console, or POST /v1/agents/{agent_id}/arena).',
      };
    }
    return { visible: true, why: 'Available because the owner turned the Arena on for this identity.' };
  },
};

/** The run tools' names, as challenges list them in allowed_tools. */
export type RunTool = (typeof ARENA_TOOL_NAMES)[number];
