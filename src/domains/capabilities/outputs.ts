import { z } from 'zod';
import { nextSteps, TOOL_GROUPS } from '../../framework/index.ts';
import { assignmentOutput } from '../arena/index.ts';
import { standingOutput } from '../identity/index.ts';

/** capabilities_describe's answer (framework/output.ts). */

const toolAvailability = z.object({
  name: z.string(),
  group: z.enum(TOOL_GROUPS),
  available: z.boolean(),
  why: z.string().describe('Why it is or is not available to you now.'),
});

const groupCapability = z.object({
  available: z.boolean(),
  tools: z.array(z.string()).describe('The tools of the group you may use now.'),
  why: z.string(),
});

export const describeOutput = z.object({
  agent_id: z.string(),
  mode: z.enum(['NONE', 'CAMPAIGN', 'READ']),
  ...standingOutput,
  tools: z.array(toolAvailability).describe('Every tool, with whether you may call it now.'),
  limits: z.array(
    z.object({
      area: z.string(),
      limit: z.string(),
      values: z.record(z.string(), z.number()).optional(),
    }),
  ),
  budget: z.object({
    currency: z.literal('USD'),
    spend_cap_usd: z.number(),
    spent_usd: z.number(),
    paid_actions_available: z.boolean(),
  }),
  next_steps: nextSteps,
  capability_map: z.record(z.enum(TOOL_GROUPS), groupCapability).describe('Per SPEC tool group.'),
  arena_assignment: assignmentOutput.nullable(),
});
