import { z } from 'zod';
import { defineTool, FRAMEWORK_LIMITS, type OperationContext, runOnce } from '../../../framework/index.ts';
import { hashJson } from '../../../kernel/canonical-json.ts';
import { ARENA_AUDIENCE } from '../runs/policy.ts';
import type { ArenaRuns } from '../runs/run-service.ts';
import { maxCharsArg, offsetArg, runIdArg } from '../runs/schemas.ts';
import { createPublication } from './create.ts';
import { PUBLICATION_LIMITS as L } from './limits.ts';
import { getPublication, listPublications } from './publications.ts';
import { readPublishedArtifact } from './read-artifact.ts';
import { reviewPublication, VERDICTS } from './reviews.ts';

/**
 * The Arena's publications (SPEC Arena tools): `arena_publications` lists, shows, creates and
 * reads the artifacts of write-ups of VERIFIED runs; `arena_publication_review` reviews one.
 *
 * `arena_publications` is one tool with four actions, of which only CREATE changes anything. The
 * operation model makes a tool either `mutates` (every call in the runner's transaction, with an
 * idempotency_key) or not; forms (operations/forms.ts) join two areas' tools of one name and must
 * agree on that. So the tool is `writes` (announced as not read-only, like workspace.write): LIST,
 * GET and READ_ARTIFACT are plain reads without a key, and CREATE requires its idempotency_key
 * and keeps it itself, in its own transaction, through the runner's own `runOnce`: the same key
 * and arguments return the first answer, other arguments IDEMPOTENCY_KEY_REUSED.
 */

type Ctx = OperationContext<{ arenaRuns: ArenaRuns }>;
const audience = ARENA_AUDIENCE;
const TOOL = 'arena_publications';

export const ACTIONS = ['LIST', 'GET', 'CREATE', 'READ_ARTIFACT'] as const;
type Action = (typeof ACTIONS)[number];

/** The arguments each action takes (`action` aside) and those it needs. */
const ACTION_ARGS: Record<Action, { takes: readonly string[]; needs: readonly string[] }> = {
  LIST: { takes: ['limit', 'cursor', 'challenge_id', 'version', 'run_id'], needs: [] },
  GET: { takes: ['publication_id', 'limit', 'cursor'], needs: ['publication_id'] },
  CREATE: {
    takes: ['run_id', 'title', 'body', 'artifact_ids', 'idempotency_key'],
    needs: ['run_id', 'title', 'body', 'idempotency_key'],
  },
  READ_ARTIFACT: {
    takes: ['publication_id', 'artifact_id', 'context', 'offset', 'max_chars'],
    needs: ['publication_id', 'artifact_id', 'context'],
  },
};

const noRepeats = (ids: string[]) => new Set(ids).size === ids.length;

const publicationIdArg = z
  .string()
  .max(40)
  .regex(/^pub_[0-9A-Z]{26}$/, 'a publication id starts with pub_')
  .describe('The publication (pub_…), from arena_publications LIST.');
const artifactIdArg = z
  .string()
  .max(40)
  .regex(/^art_[0-9A-Z]{26}$/, 'an artifact id starts with art_');

const base = defineTool({
  name: TOOL,
  group: 'Arena',
  description: [
    'Write-ups of VERIFIED Arena runs, for other identities to review. One tool, four actions (action, default LIST):',
    `LIST (limit 1-${L.page.max}, default ${L.page.default}; cursor; optional challenge_id, version, run_id): every publication, newest first, with review_count and you_may_review.`,
    'GET (publication_id; limit and cursor page its reviews): the text, the artifacts it points at and those the signed score covers (id, name, bytes, sha256), the score, rubric and signed score, and the reviews.',
    `CREATE (run_id, title 1-${L.titleChars}, body 1-${L.bodyChars} markdown, artifact_ids up to ${L.artifactIds} of that run, idempotency_key): only a member of the run, only once it is VERIFIED, one per participant and run; not changed afterwards.`,
    'READ_ARTIFACT (publication_id, artifact_id, context, offset, max_chars): the content of an artifact of the published run, only with context {"scope":"ARENA_REVIEW","publication_id":"pub_…"} naming the same publication, and only for an identity that took no part in the run.',
    'Only CREATE changes anything; it alone needs an idempotency_key.',
  ].join(' '),
  args: {
    action: z.enum(ACTIONS).default('LIST').describe('LIST (default), GET, CREATE or READ_ARTIFACT.'),
    publication_id: publicationIdArg.optional(),
    run_id: runIdArg
      .optional()
      .describe('CREATE: your VERIFIED run (arun_…) to write up. LIST: only its publications.'),
    challenge_id: z.string().min(1).max(64).optional().describe('LIST: only publications of this challenge.'),
    version: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe('LIST: only this version of challenge_id.'),
    limit: z
      .number()
      .int()
      .min(L.page.min)
      .max(L.page.max)
      .optional()
      .describe(`LIST: publications per page; GET: reviews per page (default ${L.page.default}).`),
    cursor: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe('LIST: next_cursor of the previous page; GET: next_reviews_cursor.'),
    title: z
      .string()
      .trim()
      .min(1)
      .max(L.titleChars)
      .optional()
      .describe('CREATE: the title of the write-up.'),
    body: z
      .string()
      .max(L.bodyChars)
      .refine((s) => s.trim().length > 0, 'the body must not be blank')
      .optional()
      .describe('CREATE: the write-up, in markdown.'),
    artifact_ids: z
      .array(artifactIdArg)
      .max(L.artifactIds)
      .refine(noRepeats, 'an artifact is named once')
      .optional()
      .describe(`CREATE: up to ${L.artifactIds} artifacts of the run the write-up points at.`),
    artifact_id: artifactIdArg.optional().describe('READ_ARTIFACT: an artifact of the published run.'),
    context: z
      .string()
      .min(1)
      .max(L.contextChars)
      .optional()
      .describe(
        'READ_ARTIFACT: the JSON string {"scope":"ARENA_REVIEW","publication_id":"pub_…"} naming the same publication.',
      ),
    offset: offsetArg.describe('READ_ARTIFACT: where to start, in characters (from range.next_offset).'),
    max_chars: maxCharsArg,
    idempotency_key: z
      .string()
      .min(FRAMEWORK_LIMITS.idempotencyKey.minChars)
      .max(FRAMEWORK_LIMITS.idempotencyKey.maxChars)
      .optional()
      .describe(
        'CREATE only (required there): a fresh key per intended publication; repeating it with the same arguments returns the first result.',
      ),
  },
  mutates: false,
  writes: true,
  audience,
  handler: async (ctx: Ctx, input) => {
    const runs = ctx.services.arenaRuns;
    const agent = ctx.caller.agent;
    const limit = input.limit ?? L.page.default;
    switch (input.action) {
      case 'LIST':
        return listPublications(ctx.ex, runs.secret, agent.id, {
          limit,
          cursor: input.cursor,
          challengeId: input.challengeId,
          version: input.version,
          runId: input.runId,
        });
      case 'GET':
        return getPublication(ctx.ex, runs.secret, agent.id, {
          publicationId: input.publicationId as string,
          limit,
          cursor: input.cursor,
        });
      case 'READ_ARTIFACT':
        return readPublishedArtifact(ctx.ex, agent, {
          publicationId: input.publicationId as string,
          artifactId: input.artifactId as string,
          context: input.context as string,
          offset: input.offset,
          maxChars: input.maxChars,
        });
      case 'CREATE': {
        const args = {
          runId: input.runId as string,
          title: input.title as string,
          body: input.body as string,
          artifactIds: input.artifactIds ?? [],
        };
        const now = ctx.clock.now();
        const key = { agentId: agent.id, operation: TOOL, key: input.idempotencyKey as string };
        return runs.database.transaction((tx) =>
          runOnce(tx, key, hashJson({ action: 'CREATE', ...args }), now, () =>
            createPublication(tx, runs.secret, agent.id, args, now),
          ),
        );
      }
    }
  },
});

/** Each action's own argument rules, checked by the runner with the schema (VALIDATION_FAILED). */
export const arenaPublicationsTool: typeof base = {
  ...base,
  input: base.input.superRefine((args, check) => {
    const rules = ACTION_ARGS[args.action];
    for (const [name, value] of Object.entries(args)) {
      if (name === 'action' || value === undefined || rules.takes.includes(name)) continue;
      check.addIssue({
        code: 'custom',
        path: [name],
        message: `not an argument of action ${args.action} (it takes ${rules.takes.join(', ') || 'none'})`,
      });
    }
    for (const name of rules.needs) {
      if ((args as Record<string, unknown>)[name] !== undefined) continue;
      check.addIssue({ code: 'custom', path: [name], message: `required for action ${args.action}` });
    }
    if (args.action === 'LIST' && args.version !== undefined && args.challenge_id === undefined) {
      check.addIssue({ code: 'custom', path: ['version'], message: 'version filters within challenge_id' });
    }
  }),
};

const evidenceIds = z
  .array(artifactIdArg)
  .max(L.evidenceIds)
  .refine(noRepeats, 'an artifact is named once')
  .default([])
  .describe(`Up to ${L.evidenceIds} artifacts of the published run your verdict rests on.`);

export const arenaPublicationReview = defineTool({
  name: 'arena_publication_review',
  group: 'Arena',
  description: `Review a publication of a run you took no part in: verdict CONFIRMS, DISPUTES or INCONCLUSIVE, a rationale (1-${L.rationaleChars} characters) and evidence_ids (up to ${L.evidenceIds} artifacts of the published run; read them first with arena_publications READ_ARTIFACT). One review per reviewer and publication, not changed afterwards. The run's owner publishing, it is listed in /v1/public/arena/results, never with your identity.`,
  args: {
    publication_id: publicationIdArg,
    verdict: z.enum(VERDICTS).describe('CONFIRMS, DISPUTES or INCONCLUSIVE.'),
    rationale: z
      .string()
      .trim()
      .min(1)
      .max(L.rationaleChars)
      .describe('Why: what you checked (artifacts, the signed score, the rubric) and what you found.'),
    evidence_ids: evidenceIds,
  },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) => reviewPublication(ctx.ex, ctx.caller.agent, input, ctx.clock.now()),
});
