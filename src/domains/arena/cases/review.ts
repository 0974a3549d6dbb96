/**
 * The reviewers' side of Arena cases: the queue of open cases and the decision. Only an owner
 * account the operator named a reviewer (`cairn owner reviewer --email E --on`) may read the
 * queue or decide; no agent token can decide anything (these are owner operations only). An
 * appeal is decided by another reviewer than the one who decided the case it appeals, and no
 * reviewer decides a case their own identities filed or are the subject of.
 */
import { and, asc, eq, gt, inArray } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import { lockedOne } from '../../../storage/locked.ts';
import { findAgent, isArenaReviewer } from '../../identity/index.ts';
import { arenaCases, arenaRuns, arenaSuperchallenges } from '../tables.ts';
import { NO_SANCTION_LIFTED, presentCase } from './cases.ts';

async function requireReviewer(ex: Executor, ownerId: string): Promise<void> {
  if (await isArenaReviewer(ex, ownerId)) return;
  throw new DomainError('ARENA_NOT_REVIEWER', 'Only Arena reviewers decide reports and appeals.', {});
}

type CaseRow = typeof arenaCases.$inferSelect;

/**
 * Why this reviewer is not independent of a case, or null: one of their own identities filed it,
 * or the case is about a run of theirs (every member of a run is its assigning owner's identity),
 * or about a challenge version one of their identities proposed (SPEC: an independent human
 * decision).
 */
async function reviewerTie(ex: Executor, ownerId: string, c: CaseRow): Promise<string | null> {
  if ((await findAgent(ex, c.filerAgentId))?.ownerId === ownerId) return 'one of your identities filed it';
  const [run] = await ex
    .select({ ownerId: arenaRuns.ownerId })
    .from(arenaRuns)
    .where(eq(arenaRuns.id, c.runId));
  if (run?.ownerId === ownerId) return 'it is about a run of your identities';
  if (c.subjectType !== 'CHALLENGE_VERSION') return null;
  const [proposed] = await ex
    .select({ agentId: arenaSuperchallenges.proposerAgentId })
    .from(arenaSuperchallenges)
    .where(
      and(
        eq(arenaSuperchallenges.challengeId, c.challengeId),
        eq(arenaSuperchallenges.version, c.challengeVersion),
      ),
    );
  if (proposed && (await findAgent(ex, proposed.agentId))?.ownerId === ownerId) {
    return 'it is about a challenge one of your identities proposed';
  }
  return null;
}

/** The cases of a page this reviewer is tied to (reviewerTie), in one pass per case. */
async function tiedCases(ex: Executor, ownerId: string, rows: CaseRow[]): Promise<Set<string>> {
  const tied = new Set<string>();
  for (const r of rows) if (await reviewerTie(ex, ownerId, r)) tied.add(r.id);
  return tied;
}

export class ArenaReviewService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** Open cases, oldest first (first filed, first decided), after `after` (a case id). */
  async queue(ownerId: string, input: { limit: number; after?: string | undefined }) {
    const ex = this.database.db;
    await requireReviewer(ex, ownerId);
    const rows = await ex
      .select()
      .from(arenaCases)
      .where(and(eq(arenaCases.status, 'OPEN'), input.after ? gt(arenaCases.id, input.after) : undefined))
      .orderBy(asc(arenaCases.id))
      .limit(input.limit);
    const appealed = rows.filter((r) => r.appealOf).map((r) => r.appealOf as string);
    // Who decided each appealed case, in one query for the page.
    const decided = appealed.length
      ? await ex
          .select({ id: arenaCases.id, by: arenaCases.decidedBy })
          .from(arenaCases)
          .where(inArray(arenaCases.id, appealed))
      : [];
    const decidedBy = new Map(decided.map((d) => [d.id, d.by]));
    const tied = await tiedCases(ex, ownerId, rows);
    return {
      cases: rows.map((r) => ({
        ...presentCase(r),
        filer_agent_id: r.filerAgentId,
        // An appeal of your own decision, and a case your own identities are part of, are for
        // another reviewer.
        you_may_decide: !tied.has(r.id) && !(r.appealOf && decidedBy.get(r.appealOf) === ownerId),
      })),
      next_after: rows.length === input.limit ? (rows.at(-1)?.id ?? null) : null,
    };
  }

  async decide(ownerId: string, caseId: string, input: { outcome: 'UPHELD' | 'DISMISSED'; reasons: string }) {
    return this.database.transaction(async (tx) => {
      await requireReviewer(tx, ownerId);
      const c = await lockedOne(
        tx.select().from(arenaCases).where(eq(arenaCases.id, caseId)),
        () => new DomainError('NOT_FOUND', 'No such case.', { case_id: caseId }),
      );
      if (c.status === 'RESOLVED') {
        throw new DomainError('CONFLICT', 'This case is already decided.', {
          case_id: caseId,
          outcome: c.outcome,
        });
      }
      if (c.appealOf) {
        const [original] = await tx
          .select({ by: arenaCases.decidedBy })
          .from(arenaCases)
          .where(eq(arenaCases.id, c.appealOf));
        if (original?.by === ownerId) {
          throw new DomainError(
            'ARENA_SAME_REVIEWER',
            'You decided the case this appeal is against; another reviewer decides the appeal.',
            { case_id: caseId, appeal_of: c.appealOf },
          );
        }
      }
      const tie = await reviewerTie(tx, ownerId, c);
      if (tie) {
        throw new DomainError(
          'ARENA_SAME_REVIEWER',
          `You cannot decide this case: ${tie}. A decision must be independent; another reviewer decides it.`,
          { case_id: caseId, tie },
          { next: 'Leave it in the queue (you_may_decide is false for you); another reviewer decides it.' },
        );
      }
      const now = this.clock.now();
      const [row] = await tx
        .update(arenaCases)
        .set({
          status: 'RESOLVED',
          outcome: input.outcome,
          reasons: input.reasons,
          decidedBy: ownerId,
          resolvedAt: now,
        })
        .where(and(eq(arenaCases.id, caseId), eq(arenaCases.status, 'OPEN')))
        .returning();
      return {
        ...presentCase(row as typeof c),
        note: NO_SANCTION_LIFTED,
        next: 'The filer sees the decision in arena_reports and may appeal it once (another reviewer decides).',
      };
    });
  }
}
