import { z } from 'zod';
import {
  defineOperation,
  type OperationContext,
  TOOL_GROUPS,
  type ToolAvailability,
  type ToolGroup,
} from '../../framework/index.ts';
import type { PublishedLimit } from '../../kernel/limits.ts';
import type { ArenaRuns } from '../arena/index.ts';
import { ALWAYS, type IdentityService, presentStanding } from '../identity/index.ts';
import { describeOutput } from './outputs.ts';

type S = { limits: PublishedLimit[]; identity: IdentityService; arenaRuns: ArenaRuns };

/** Per SPEC group: whether anything in it is usable now, and which tools. */
function capabilityMap(tools: ToolAvailability[]) {
  // Every group has its entry: the map is walked from TOOL_GROUPS.
  return Object.fromEntries(
    TOOL_GROUPS.map((group) => {
      const inGroup = tools.filter((t) => t.group === group);
      if (inGroup.length === 0) {
        return [group, { available: false, tools: [], why: 'Not offered by this server yet.' }];
      }
      const usable = inGroup.filter((t) => t.available);
      return [
        group,
        {
          available: usable.length > 0,
          tools: usable.map((t) => t.name),
          why:
            usable.length > 0
              ? `${usable.length} of ${inGroup.length} tools usable.`
              : (inGroup[0]?.why ?? 'Not available now.'),
        },
      ];
    }),
  ) as Record<ToolGroup, { available: boolean; tools: string[]; why: string }>;
}

const describe = defineOperation({
  name: 'capabilities_describe',
  group: 'Always',
  description:
    'What this identity can do now: mode, every tool with why it is or is not available, limits, budget, next steps, a capability map by group, and the current Arena assignment. The current authority on the tool catalogue.',
  input: z.object({}).strict(),
  mutates: false,
  visibleWhen: 'always',
  visibility: () => ALWAYS,
  output: describeOutput,
  handler: async (ctx: OperationContext<S>) => {
    const agent = ctx.caller.agent;
    const tools = ctx.availability();
    const { next_steps, ...standing } = presentStanding(
      agent,
      await ctx.services.identity.campaignLinks(ctx.ex, agent.id),
    );
    return {
      agent_id: agent.id,
      mode: agent.mode,
      ...standing,
      tools,
      limits: ctx.services.limits,
      // SPEC leaves budget units open; see docs/decisions.md. An agent never spends money itself:
      // rewards come from its campaign owner's balance, and every payout needs the owner's approval.
      budget: { currency: 'USD' as const, spend_cap_usd: 0, spent_usd: 0, paid_actions_available: false },
      next_steps,
      capability_map: capabilityMap(tools),
      // The identity's current Arena assignment, with the exact arena_start arguments (docs/arena.md).
      arena_assignment: agent.arenaEnabled
        ? await ctx.services.arenaRuns.assignmentOf(ctx.ex, agent.id)
        : null,
    };
  },
});

export const capabilityOperations = [describe];
