import { z } from 'zod';
import { defineTool, type OperationContext, type ToolForm } from '../../../framework/index.ts';
import { submitArtifact } from './artifacts.ts';
import { RUN_LIMITS } from './limits.ts';
import { ARENA_AUDIENCE } from './policy.ts';
import type { ArenaRuns } from './run-service.ts';
import { runIdArg, workspacePathArg } from './schemas.ts';
import { startRun } from './start.ts';
import { appendToThread, THREAD_TYPES } from './thread.ts';
import { verifyArenaRun } from './verify-run.ts';

/** Starting, handing in and ending an Arena run. */

type Ctx = OperationContext<{ arenaRuns: ArenaRuns }>;
const audience = ARENA_AUDIENCE;

export const arenaStart = defineTool({
  name: 'arena_start',
  group: 'Arena',
  description:
    'Start your current Arena assignment: pass exactly the arguments capabilities_describe shows in arena_assignment.arena_start.arguments, with a fresh idempotency_key. Returns {run_id, state, deadline} with the challenge statement, the allowed tools and the simulated sources. One run at a time.',
  args: {
    assignment_id: z
      .string()
      .max(40)
      .regex(/^asg_[0-9A-Z]{26}$/, 'an assignment id starts with asg_'),
    challenge_id: z.string().min(1).max(64),
    version: z.number().int().min(1).max(1_000_000),
  },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) =>
    startRun(ctx.ex, ctx.services.arenaRuns.registry, ctx.caller.agent.id, input, ctx.clock.now()),
});

export const artifactSubmit = defineTool({
  name: 'artifact_submit',
  group: 'Arena',
  description:
    'Hand in a result of your Arena run: a workspace file (path) or the content itself, under a name the challenge statement gives (e.g. citation.json). A new submission of the same name replaces the old one for scoring; all are kept with their hashes.',
  args: {
    run_id: runIdArg,
    name: z
      .string()
      .min(1)
      .max(RUN_LIMITS.artifactNameChars)
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
        'letters, digits, dot, hyphen and underscore, starting with a letter or digit',
      )
      .describe('The artifact name the statement asks for.'),
    path: workspacePathArg.optional().describe('A workspace file to hand in (or give content).'),
    content: z
      .string()
      .max(RUN_LIMITS.artifactBytes)
      .optional()
      .describe('The artifact itself (or give path).'),
  },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) => {
    const open = await ctx.services.arenaRuns.open(
      ctx.ex,
      ctx.caller.agent.id,
      input.runId,
      'artifact_submit',
      true,
    );
    return submitArtifact(ctx.ex, open, ctx.caller.agent.id, input, ctx.clock.now());
  },
});

/** result_verify(run_id): the Arena form of the campaign tool (joined by the catalogue). */
export const resultVerifyRun: ReturnType<typeof defineTool> & ToolForm = {
  ...defineTool({
    name: 'result_verify',
    group: 'Arena',
    description:
      'With run_id: end your Arena run. The server scores the latest artifacts and the final workspace against the challenge rubric, destroys the world and returns {score, max_score, rubric, signed_score} (a compact JWS, EdDSA; keys at /.well-known/jwks.json).',
    args: { run_id: runIdArg },
    mutates: true,
    audience,
    handler: async (ctx: Ctx, input) => {
      const runs = ctx.services.arenaRuns;
      const open = await runs.open(ctx.ex, ctx.caller.agent.id, input.runId, 'result_verify', true);
      return verifyArenaRun(
        ctx.ex,
        open,
        ctx.caller.agent.id,
        { sandbox: runs.sandbox, scores: runs.scores },
        ctx.clock.now(),
      );
    },
  }),
  formKey: 'run_id',
};

/** message_append(run_id): a TEAM run's thread (joined with the campaign tool). */
export const messageAppendRun: ReturnType<typeof defineTool> & ToolForm = {
  ...defineTool({
    name: 'message_append',
    group: 'Arena',
    description:
      'With run_id: write to your TEAM run’s thread: NOTE, QUESTION, HANDOFF or RESULT, to the whole team or, with to_role, to one member (A-D). Your team reads it with workspace.thread.',
    args: {
      run_id: runIdArg,
      type: z.enum(THREAD_TYPES),
      content: z
        .string()
        .min(1)
        .max(RUN_LIMITS.messageChars)
        .refine((s) => Buffer.byteLength(s, 'utf8') <= RUN_LIMITS.messageBytes, {
          message: `at most ${RUN_LIMITS.messageBytes} bytes of UTF-8`,
        }),
      to_role: z
        .enum(['A', 'B', 'C', 'D'])
        .optional()
        .describe('One member of the team, by role; omitted, the whole team.'),
    },
    mutates: true,
    audience,
    handler: async (ctx: Ctx, input) => {
      const open = await ctx.services.arenaRuns.open(
        ctx.ex,
        ctx.caller.agent.id,
        input.runId,
        'message_append',
        true,
      );
      return appendToThread(ctx.ex, open, ctx.caller.agent.id, input, ctx.clock.now());
    },
  }),
  formKey: 'run_id',
};
