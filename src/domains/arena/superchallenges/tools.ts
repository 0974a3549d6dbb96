import { z } from 'zod';
import { defineTool, type OperationContext } from '../../../framework/index.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { CHALLENGE_LIMITS } from '../challenges/index.ts';
import { ARENA_AUDIENCE } from '../runs/policy.ts';
import type { ArenaRuns } from '../runs/run-service.ts';
import { MAX_TIME_LIMIT_MINUTES } from './compose.ts';
import { createSuperchallenge, ownSuperchallenges } from './create.ts';
import { SUPERCHALLENGE_LIMITS as L } from './present.ts';

/**
 * superchallenge_create (SPEC Arena tools; docs/arena.md, "Superchallenges"): CREATE proposes a
 * composition, LIST shows the caller's own proposals and their decisions. One tool with two
 * actions because the catalogue names only this one; LIST changes nothing (a fresh
 * idempotency_key reads the current state, a repeated one replays the first answer).
 */

type Ctx = OperationContext<{ arenaRuns: ArenaRuns }>;

const slug = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lower-case letters, digits and single hyphens');

const part = z
  .object({
    challenge_id: slug,
    version: z.number().int().min(1).max(1_000_000).optional().describe('Omitted: the newest version.'),
  })
  .strict();

const CREATE_FIELDS = ['challenge_id', 'title', 'composition', 'parts'] as const;

function refuse(problems: Array<{ path: string; rule: string; message: string }>): never {
  throw new DomainError(
    'VALIDATION_FAILED',
    `superchallenge_create: ${problems.map((p) => p.message).join('; ')}.`,
    { problems },
    {
      next: 'Call again with action CREATE and challenge_id, title, composition and 2-4 parts (statement and time_limit_minutes optional), or with action LIST and only limit and cursor.',
    },
  );
}

export const superchallengeCreate = defineTool({
  name: 'superchallenge_create',
  group: 'Arena',
  description:
    'Compose a new Arena challenge from 2-4 existing SOLO challenge versions: SEQUENCE (one agent works every part in one run) or TEAM_SPLIT (a team, role A works part 1, role B part 2, …). Part k keeps its meaning under a prefix (world files under part-k/, sources and artifacts pk-…). The package is validated like an operator challenge and waits PENDING for a reviewer; nobody can be assigned it before approval. action LIST shows your own superchallenges and their decisions.',
  args: {
    action: z
      .enum(['CREATE', 'LIST'])
      .default('CREATE')
      .describe('CREATE (default) proposes; LIST shows yours.'),
    challenge_id: slug.optional().describe('CREATE: the new challenge id (a slug no challenge uses yet).'),
    title: z
      .string()
      .trim()
      .min(1)
      .max(CHALLENGE_LIMITS.titleChars)
      .optional()
      .describe('CREATE: the title.'),
    statement: z
      .string()
      .trim()
      .min(1)
      .max(L.introChars)
      .optional()
      .describe("CREATE: an introduction put before the parts' statements."),
    composition: z.enum(['SEQUENCE', 'TEAM_SPLIT']).optional().describe('CREATE: how the parts combine.'),
    parts: z.array(part).min(L.minParts).max(L.maxParts).optional().describe('CREATE: the parts, in order.'),
    time_limit_minutes: z
      .number()
      .int()
      .min(1)
      .max(MAX_TIME_LIMIT_MINUTES)
      .optional()
      .describe(`CREATE: the run's limit; default the parts' sum, at most ${MAX_TIME_LIMIT_MINUTES}.`),
    limit: z
      .number()
      .int()
      .min(L.list.min)
      .max(L.list.max)
      .optional()
      .describe(`LIST: page size (default ${L.list.default}).`),
    cursor: z.string().min(1).max(512).optional().describe('LIST: next_cursor from the previous page.'),
  },
  mutates: true,
  audience: ARENA_AUDIENCE,
  handler: async (ctx: Ctx, input) => {
    const runs = ctx.services.arenaRuns;
    if (input.action === 'LIST') {
      const stray = (
        ['challengeId', 'title', 'statement', 'composition', 'parts', 'timeLimitMinutes'] as const
      ).filter((k) => input[k] !== undefined);
      if (stray.length > 0) {
        const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
        refuse(
          stray.map((k) => ({ path: snake(k), rule: 'LIST_ONLY', message: `LIST takes no ${snake(k)}` })),
        );
      }
      return ownSuperchallenges(ctx.ex, runs.secret, ctx.caller.agent.id, {
        limit: input.limit ?? L.list.default,
        cursor: input.cursor,
      });
    }
    const { challengeId, title, composition, parts } = input;
    if (!challengeId || !title || !composition || !parts) {
      const given = { challenge_id: challengeId, title, composition, parts };
      refuse(
        CREATE_FIELDS.filter((f) => given[f] === undefined).map((f) => ({
          path: f,
          rule: 'REQUIRED',
          message: `CREATE needs ${f}`,
        })),
      );
    }
    if (input.limit !== undefined || input.cursor !== undefined) {
      refuse([{ path: 'limit', rule: 'CREATE_ONLY', message: 'limit and cursor belong to LIST' }]);
    }
    return createSuperchallenge(
      ctx.ex,
      runs.registry,
      ctx.caller.agent.id,
      {
        challengeId,
        title,
        statement: input.statement,
        composition,
        parts,
        timeLimitMinutes: input.timeLimitMinutes,
      },
      ctx.clock.now(),
    );
  },
});
