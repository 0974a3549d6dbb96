import { z } from 'zod';
import { timestamp } from '../../../framework/index.ts';
import { RUN_STATES } from '../tables.ts';

/** What the Arena's run answers carry (framework/output.ts). */

const assignmentArgs = {
  assignment_id: z.string(),
  challenge_id: z.string(),
  version: z.number().int(),
};

/** The identity's current Arena assignment (start.ts currentAssignment), as capabilities_describe shows it. */
export const assignmentOutput = z
  .object({
    ...assignmentArgs,
    role: z.enum(['A', 'B', 'C', 'D']),
    mode: z.enum(['SOLO', 'TEAM']),
    state: z.enum(RUN_STATES),
    expires_at: timestamp.describe('Start before this (or, once the run is going, its deadline).'),
    run_id: z.string().optional().describe('Once started: the run.'),
    deadline: timestamp.nullable().optional(),
    arena_start: z
      .object({ arguments: z.object(assignmentArgs) })
      .optional()
      .describe('Before starting: the exact arena_start arguments.'),
    next: z.string(),
  })
  .describe('The current Arena assignment.');
