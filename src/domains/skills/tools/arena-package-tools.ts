import { z } from 'zod';
import { type Audience, defineTool, type OperationContext } from '../../../framework/index.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Caller } from '../../identity/index.ts';
import { presentPackage, readInRun, runForShare, sharePackage } from '../arena/packages.ts';
import { contextString, OWN } from '../context.ts';
import { SKILL_LIMITS } from '../limits.ts';
import { actorOf } from '../policy.ts';
import { versionIdArg } from './version-tools.ts';

/**
 * arena_skill_share (SPEC Arena tools): an identity shares a version of its own owner's account,
 * used in a run it started, to that run's challenge version (docs/skills.md, "Arena packages").
 */

type Ctx = OperationContext<object>;

/**
 * Offered to an active identity with the Arena on; the deployment's skills switch is applied over
 * this by the catalogue (the tool is the skills area's, so CAIRN_SKILLS=off hides it).
 */
export const ARENA_SKILLS_AUDIENCE: Audience = {
  visibleWhen:
    'the deployment has skills on, the identity is active and its owner turned the Arena on for it',
  visibility: (caller: Caller) => {
    if (caller.agent.status !== 'ACTIVE') return { visible: false, why: 'The identity is not active.' };
    if (!caller.agent.arenaEnabled) {
      return {
        visible: false,
        why: 'The owner has not turned the Arena on for this identity (console, or POST /v1/agents/{agent_id}/arena).',
      };
    }
    return {
      visible: true,
      why: 'Available because skills are on here and the Arena is on for this identity.',
    };
  },
};

function notYoursToShare(versionId: string): DomainError {
  return new DomainError(
    'SKILL_CONTEXT_DENIED',
    `Skill version ${versionId} is another owner's: you may read it where a context gives it to you, but only identities of its owner's account share it.`,
    { version_id: versionId },
    {
      next: 'Share a version of your own (skill_list under OWN lists them), or publish one with skill_draft_create and skill_version_publish.',
      alternatives: [
        { tool: 'skill_list', action: 'List your own versions.', arguments: { context: contextString(OWN) } },
      ],
    },
  );
}

const runIdArg = z
  .string()
  .max(SKILL_LIMITS.list.idChars)
  .regex(/^arun_[0-9A-Z]{26}$/, 'a run id starts with arun_')
  .describe('A run you started (arun_…): the package goes to its challenge version.');

export const arenaSkillShare = defineTool({
  name: 'arena_skill_share',
  group: 'Arena',
  description:
    'Share a skill version you used in an Arena run with everyone who later runs (ARENA_RUN) or reviews (ARENA_REVIEW) that run’s challenge version. Only a version of your own owner’s account (a version granted to you cannot be passed on), not archived, blocked or bytes-deleted, and used in the run: the server delivered some of its files to you between your start of the run and its end. Sharing it again answers the package that stands. Your owner withdraws it with DELETE /v1/arena/skill-packages/{package_id}.',
  args: {
    version_id: versionIdArg,
    run_id: runIdArg,
    note: z
      .string()
      .trim()
      .min(1)
      .max(SKILL_LIMITS.package.noteChars)
      .optional()
      .describe('What it helped with (up to 2,000 characters).'),
  },
  mutates: true,
  audience: ARENA_SKILLS_AUDIENCE,
  handler: async (ctx: Ctx, input) => {
    const now = ctx.clock.now();
    const actor = actorOf(ctx.caller);
    const run = await runForShare(ctx.ex, ctx.caller.agent.id, input.runId, input.versionId);
    const shared = await sharePackage(
      ctx.ex,
      actor,
      {
        versionId: input.versionId,
        challengeId: run.challengeId,
        challengeVersion: run.challengeVersion,
        fromRunId: run.runId,
        note: input.note,
      },
      now,
    ).catch((err: unknown) => {
      // The version was delivered to the caller in the run, so it knows the version exists: another
      // owner's version (read in an Arena context, say) is refused as not its to pass on.
      if (err instanceof DomainError && err.code === 'NOT_FOUND') throw notYoursToShare(input.versionId);
      throw err;
    });
    return {
      ...presentPackage(shared.pkg, shared.version),
      created: shared.created,
      next: `${shared.created ? 'Shared.' : 'It was already shared there; this is the package that stands.'} ${readInRun(shared.pkg)} Your owner withdraws it with DELETE /v1/arena/skill-packages/${shared.pkg.id}.`,
      next_steps: [
        {
          tool: 'skill_list',
          action: 'List your own versions (context OWN), to share another.',
          arguments: { context: contextString(OWN) },
        },
      ],
    };
  },
});
