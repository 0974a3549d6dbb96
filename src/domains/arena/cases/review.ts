/**
 * The reviewers' side of Arena cases: the queue of open cases and the decision. Only an owner
 * account the operator named a reviewer (`cairn owner reviewer --email E --on`) may read the
 * queue or decide; no agent token can decide anything (these are owner operations only). An
 * appeal is decided by another reviewer than the one who decided the case it appeals.
 */
import { and, asc, eq, gt, inArray } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import { isArenaReviewer } from '../../identity/index.ts';
import { arenaCases } from '../tables.ts';
import { NO_SANCTION_LIFTED, presentCase } from './cases.ts';

async function requireReviewer(ex: Executor, ownerId: string): Promise<void> {
  if (await isArenaReviewer(ex, ownerId)) return;
  throw new DomainError('ARENA_NOT_REVIEWER', 'Only Arena reviewers decide reports and appeals.', {});
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
    return {
      cases: rows.map((r) => ({
        ...presentCase(r),
        filer_agent_id: r.filerAgentId,
        // An appeal of your own decision is for another reviewer.
        ...(r.appealOf
          ? { you_may_decide: decidedBy.get(r.appealOf) !== ownerId }
          : { you_may_decide: true }),
      })),
      next_after: rows.length === input.limit ? (rows.at(-1)?.id ?? null) : null,
    };
  }

  async decide(ownerId: string, caseId: string, input: { outcome: 'UPHELD' | 'DISMISSED'; reasons: string }) {
    return this.database.transaction(async (tx) => {
      await requireReviewer(tx, ownerId);
      const [c] = await tx.select().from(arenaCases).where(eq(arenaCases.id, caseId)).for('update');
      if (!c) throw new DomainError('NOT_FOUND', 'No such case.', { case_id: caseId });
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
