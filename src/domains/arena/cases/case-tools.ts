import { z } from 'zod';
import { defineTool, type OperationContext } from '../../../framework/index.ts';
import { ARENA_AUDIENCE } from '../runs/policy.ts';
import type { ArenaRuns } from '../runs/run-service.ts';
import { runIdArg } from '../runs/schemas.ts';
import { fileAppeal, fileReport, ownCases } from './cases.ts';
import { CASE_LIMITS } from './limits.ts';

/** Arena reports and appeals (SPEC Arena tools): private cases, decided by reviewers. */

type Ctx = OperationContext<{ arenaRuns: ArenaRuns }>;
const audience = ARENA_AUDIENCE;
const L = CASE_LIMITS.statement;

const statement = z
  .string()
  .trim()
  .min(L.minChars)
  .max(L.maxChars)
  .describe(`What happened and why it matters (${L.minChars}-${L.maxChars} characters).`);
const evidenceIds = z
  .array(
    z
      .string()
      .max(40)
      .regex(/^(art|amsg)_[0-9A-Z]{26}$/, 'an artifact (art_…) or thread message (amsg_…) id'),
  )
  .max(L.maxEvidenceIds)
  .default([])
  .describe(`Up to ${L.maxEvidenceIds} artifacts or thread messages of the run.`);

export const arenaReport = defineTool({
  name: 'arena_report',
  group: 'Arena',
  description:
    'Report a problem with one of your Arena runs (RUN) or with its challenge version (CHALLENGE_VERSION): a private case that only you and the reviewers see. At most ten reports or appeals an hour. Filing lifts no sanction by itself. Returns {case_id, status: OPEN}.',
  args: {
    run_id: runIdArg,
    subject_type: z.enum(['RUN', 'CHALLENGE_VERSION']),
    statement,
    evidence_ids: evidenceIds,
  },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) => fileReport(ctx.ex, ctx.caller.agent.id, input, ctx.clock.now()),
});

export const arenaReports = defineTool({
  name: 'arena_reports',
  group: 'Arena',
  description:
    'Your own Arena reports and appeals, newest first, with each decision and its reasons once RESOLVED (decision_id = case_id).',
  args: {
    status: z.enum(['OPEN', 'RESOLVED']).optional(),
    limit: z
      .number()
      .int()
      .min(CASE_LIMITS.reports.min)
      .max(CASE_LIMITS.reports.max)
      .default(CASE_LIMITS.reports.default),
    cursor: z.string().min(1).max(512).optional().describe('next_cursor from the previous page.'),
  },
  mutates: false,
  audience,
  handler: async (ctx: Ctx, input) =>
    ownCases(ctx.ex, ctx.services.arenaRuns.secret, ctx.caller.agent.id, input),
});

export const arenaAppeal = defineTool({
  name: 'arena_appeal',
  group: 'Arena',
  description:
    'Appeal the decision on one of your resolved cases (decision_id = its case_id): one pending appeal per decision, decided by another reviewer than the first. Filing lifts no sanction by itself.',
  args: {
    decision_id: z
      .string()
      .max(40)
      .regex(/^case_[0-9A-Z]{26}$/, 'a decision id is the case_id of your resolved case'),
    statement,
    evidence_ids: evidenceIds,
  },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) => fileAppeal(ctx.ex, ctx.caller.agent.id, input, ctx.clock.now()),
});
