/**
 * Arena reports and appeals, as their filer sees them (SPEC Arena report; docs/arena.md,
 * "Reports and appeals"). A case is private: its filer and the deployment's reviewers see it;
 * anyone else gets NOT_FOUND, worded as for a case that does not exist. Filing lifts no sanction
 * by itself, and every answer says so. Intake is ten new reports or appeals per identity per
 * rolling hour, decided under a lock on the identity's intake so concurrent filings cannot pass it.
 */
import { and, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { cutPage } from '../../../kernel/paging.ts';
import type { Executor } from '../../../storage/database.ts';
import { afterCursor, cursorAt } from '../runs/paging.ts';
import { arenaArtifacts, arenaCases, arenaRunMembers, arenaRunMessages, arenaRuns } from '../tables.ts';
import { CASE_LIMITS } from './limits.ts';

export const NO_SANCTION_LIFTED =
  'Filing a report or an appeal lifts no sanction by itself; only a reviewer’s decision changes anything.';
const HOUR_MS = 3_600_000;
const L = CASE_LIMITS.statement;

export type CaseRow = typeof arenaCases.$inferSelect;

export function presentCase(c: CaseRow) {
  return {
    case_id: c.id,
    kind: c.kind,
    run_id: c.runId,
    subject_type: c.subjectType,
    challenge_id: c.challengeId,
    challenge_version: c.challengeVersion,
    statement: c.statement,
    evidence_ids: c.evidenceIds,
    ...(c.appealOf ? { appeal_of: c.appealOf } : {}),
    status: c.status,
    created_at: c.createdAt.toISOString(),
    ...(c.status === 'RESOLVED'
      ? {
          decision: {
            decision_id: c.id,
            outcome: c.outcome,
            reasons: c.reasons,
            resolved_at: c.resolvedAt?.toISOString() ?? null,
          },
        }
      : {}),
  };
}

export function caseNotFound(id: string, field = 'case_id'): DomainError {
  return new DomainError(
    'NOT_FOUND',
    'No such case of yours.',
    { [field]: id },
    { alternatives: [{ tool: 'arena_reports', action: 'List your own cases.' }] },
  );
}

/** Refuses past ten new cases in the last hour, naming when the next is allowed. */
async function checkIntake(ex: Executor, agentId: string, now: Date): Promise<void> {
  // One filer's intake at a time: the count and the insert below decide together.
  await ex.execute(sql`select pg_advisory_xact_lock(hashtext(${`arena-intake:${agentId}`}))`);
  const since = new Date(now.getTime() - HOUR_MS);
  const recent = await ex
    .select({ createdAt: arenaCases.createdAt })
    .from(arenaCases)
    .where(and(eq(arenaCases.filerAgentId, agentId), gt(arenaCases.createdAt, since)))
    .orderBy(arenaCases.createdAt);
  if (recent.length < L.perHour) return;
  const first = recent[recent.length - L.perHour]?.createdAt ?? now;
  const nextAt = new Date(first.getTime() + HOUR_MS);
  throw new DomainError(
    'RATE_LIMITED',
    `At most ${L.perHour} new reports or appeals an hour; the next may be filed at ${nextAt.toISOString()}.`,
    { limit: L.perHour, window_seconds: 3600, next_allowed_at: nextAt.toISOString() },
    {
      retryable: true,
      next: `File it again after ${nextAt.toISOString()}; arena_reports lists the cases you have.`,
    },
  );
}

/** Evidence ids must be artifacts or thread messages of that run. */
async function checkEvidence(ex: Executor, runId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const artifacts = await ex
    .select({ id: arenaArtifacts.id })
    .from(arenaArtifacts)
    .where(and(eq(arenaArtifacts.runId, runId), inArray(arenaArtifacts.id, ids)));
  const messages = await ex
    .select({ id: arenaRunMessages.id })
    .from(arenaRunMessages)
    .where(and(eq(arenaRunMessages.runId, runId), inArray(arenaRunMessages.id, ids)));
  const known = new Set([...artifacts, ...messages].map((r) => r.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new DomainError(
      'VALIDATION_FAILED',
      'Evidence must be artifacts (art_…) or thread messages (amsg_…) of the run reported.',
      { unknown_evidence_ids: unknown },
    );
  }
}

export async function fileReport(
  ex: Executor,
  agentId: string,
  input: {
    runId: string;
    subjectType: 'RUN' | 'CHALLENGE_VERSION';
    statement: string;
    evidenceIds: string[];
  },
  now: Date,
) {
  const [run] = await ex
    .select({ id: arenaRuns.id, challengeId: arenaRuns.challengeId, version: arenaRuns.challengeVersion })
    .from(arenaRuns)
    .innerJoin(arenaRunMembers, eq(arenaRunMembers.runId, arenaRuns.id))
    .where(and(eq(arenaRuns.id, input.runId), eq(arenaRunMembers.agentId, agentId)));
  if (!run) {
    throw new DomainError(
      'NOT_FOUND',
      'No such run of yours.',
      { run_id: input.runId },
      { next: 'Report a run you took part in (its run_id from arena_start).' },
    );
  }
  await checkEvidence(ex, run.id, input.evidenceIds);
  await checkIntake(ex, agentId, now);
  const [row] = await ex
    .insert(arenaCases)
    .values({
      id: newId('case', now),
      kind: 'REPORT',
      runId: run.id,
      subjectType: input.subjectType,
      challengeId: run.challengeId,
      challengeVersion: run.version,
      filerAgentId: agentId,
      statement: input.statement,
      evidenceIds: input.evidenceIds,
      status: 'OPEN',
      createdAt: now,
    })
    .returning();
  return {
    ...presentCase(row as CaseRow),
    note: NO_SANCTION_LIFTED,
    next: 'A reviewer decides it; arena_reports shows its status and, once RESOLVED, the decision and its reasons.',
  };
}

export async function fileAppeal(
  ex: Executor,
  agentId: string,
  input: { decisionId: string; statement: string; evidenceIds: string[] },
  now: Date,
) {
  const [decided] = await ex
    .select()
    .from(arenaCases)
    .where(and(eq(arenaCases.id, input.decisionId), eq(arenaCases.filerAgentId, agentId)));
  if (!decided) throw caseNotFound(input.decisionId, 'decision_id');
  if (decided.status !== 'RESOLVED') {
    throw new DomainError(
      'CONFLICT',
      'That case has no decision yet; an appeal is against a decision.',
      { decision_id: decided.id, status: decided.status },
      { next: 'Wait for the decision (arena_reports), then appeal it if you disagree.' },
    );
  }
  await checkEvidence(ex, decided.runId, input.evidenceIds);
  await checkIntake(ex, agentId, now);
  const [row] = await ex
    .insert(arenaCases)
    .values({
      id: newId('case', now),
      kind: 'APPEAL',
      runId: decided.runId,
      subjectType: decided.subjectType,
      challengeId: decided.challengeId,
      challengeVersion: decided.challengeVersion,
      filerAgentId: agentId,
      statement: input.statement,
      evidenceIds: input.evidenceIds,
      appealOf: decided.id,
      status: 'OPEN',
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) {
    const [pending] = await ex
      .select({ id: arenaCases.id })
      .from(arenaCases)
      .where(and(eq(arenaCases.appealOf, decided.id), eq(arenaCases.status, 'OPEN')));
    throw new DomainError(
      'CONFLICT',
      'An appeal of this decision is already pending; one at a time.',
      { decision_id: decided.id, pending_case_id: pending?.id ?? null },
      { next: 'Wait for that appeal to be decided (arena_reports).' },
    );
  }
  return {
    ...presentCase(row),
    note: NO_SANCTION_LIFTED,
    next: 'Another reviewer than the one who decided the case decides the appeal; arena_reports shows it.',
  };
}

/** The caller's own cases, newest first, in SQL before the page is cut. */
export async function ownCases(
  ex: Executor,
  secret: string,
  agentId: string,
  input: { status?: 'OPEN' | 'RESOLVED' | undefined; limit: number; cursor?: string | undefined },
) {
  const binding = `arena-cases\n${agentId}\n${input.status ?? ''}`;
  const rows = await ex
    .select()
    .from(arenaCases)
    .where(
      and(
        eq(arenaCases.filerAgentId, agentId),
        input.status ? eq(arenaCases.status, input.status) : undefined,
        afterCursor(secret, binding, input.cursor, arenaCases.createdAt, arenaCases.id),
      ),
    )
    .orderBy(desc(arenaCases.createdAt), desc(arenaCases.id))
    .limit(input.limit + 1);
  const page = cutPage(rows, input.limit, (last) =>
    cursorAt(secret, binding, { at: last.createdAt, id: last.id }),
  );
  return {
    cases: page.rows.map(presentCase),
    next_cursor: page.next,
    note: NO_SANCTION_LIFTED,
    next: 'A RESOLVED case may be appealed once with arena_appeal (decision_id = its case_id).',
  };
}
