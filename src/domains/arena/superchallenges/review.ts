/**
 * The reviewers' side of superchallenges (docs/arena.md, "Superchallenges"): the queue (pending
 * first) and the decision. Only owner accounts the operator named Arena reviewers read or decide,
 * never an agent token (these are owner operations only), and not a proposal of one of their own
 * identities. Approval copies the package into arena_challenge_versions in the same transaction,
 * so every replica's registry serves it from then on; rejection keeps the row, and so the id.
 */
import { and, asc, eq, gt, or, sql } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { cutPage } from '../../../kernel/paging.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import { lockedOne } from '../../../storage/locked.ts';
import { describeAgents, findAgent, isArenaReviewer } from '../../identity/index.ts';
import type { ChallengeRegistry } from '../challenges/registry.ts';
import { arenaChallengeVersions, arenaSuperchallenges } from '../tables.ts';
import { PROPOSAL_COLUMNS, presentProposal } from './present.ts';

export type SuperchallengeStatus = 'PENDING' | 'APPROVED' | 'REJECTED';

async function requireReviewer(ex: Executor, ownerId: string): Promise<void> {
  if (await isArenaReviewer(ex, ownerId)) return;
  throw new DomainError('ARENA_NOT_REVIEWER', 'Only Arena reviewers read and decide superchallenges.', {});
}

const t = arenaSuperchallenges;
/** 0 for a pending proposal, 1 for a decided one: the queue's first key. */
const rank = sql<number>`(case when ${t.status} = 'PENDING' then 0 else 1 end)`;

function parseManifest(text: string | null): Record<string, unknown> {
  try {
    return JSON.parse(text ?? '{}') as Record<string, unknown>;
  } catch {
    return {};
  }
}

export class SuperchallengeReviewService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly registry: ChallengeRegistry,
    /** Signs the queue's cursors. */
    private readonly secret: string,
  ) {}

  /**
   * Pending proposals first (oldest first), then decided ones; `status` narrows the list. Each
   * with its composed terms (challenge.json) and whether this reviewer may decide it.
   */
  async queue(
    ownerId: string,
    input: { status?: SuperchallengeStatus | undefined; limit: number; cursor?: string | undefined },
  ) {
    const ex = this.database.db;
    await requireReviewer(ex, ownerId);
    const binding = `arena-superchallenge-queue\n${ownerId}\n${input.status ?? ''}`;
    let after: ReturnType<typeof or> | undefined;
    if (input.cursor) {
      const p = openCursor<{ rank: number; id: string }>(this.secret, binding, input.cursor);
      after = or(gt(rank, Number(p.rank)), and(eq(rank, Number(p.rank)), gt(t.id, String(p.id))));
    }
    const rows = await ex
      .select({
        ...PROPOSAL_COLUMNS,
        decidedBy: t.decidedBy,
        proposer: t.proposerAgentId,
        rank,
        // challenge.json is the first file (compose.ts); the rest stays in the database.
        manifest: sql<string>`${t.files}->0->>'content'`,
        files: sql<number>`jsonb_array_length(${t.files})`,
      })
      .from(t)
      .where(and(input.status ? eq(t.status, input.status) : undefined, after))
      .orderBy(asc(rank), asc(t.id))
      .limit(input.limit + 1);
    const { rows: page, next } = cutPage(rows, input.limit, (last) =>
      signCursor(this.secret, binding, { rank: Number(last.rank), id: last.id }),
    );
    const owners = new Map(
      (await describeAgents(ex, [...new Set(page.map((r) => r.proposer))])).map((a) => [a.id, a.ownerId]),
    );
    return {
      superchallenges: page.map((r) => {
        const c = parseManifest(r.manifest);
        const own = owners.get(r.proposer) === ownerId;
        return {
          ...presentProposal(r, typeof c.title === 'string' ? c.title : null),
          proposer_agent_id: r.proposer,
          statement: c.statement,
          mode: c.mode,
          ...(c.team_size ? { team_size: c.team_size } : {}),
          time_limit_minutes: c.time_limit_minutes,
          allowed_tools: c.allowed_tools,
          rubric: (c.verifier as { rubric?: unknown } | undefined)?.rubric ?? [],
          file_count: Number(r.files),
          decided_by_you: r.decidedBy === ownerId,
          // A proposal of one's own identities is for another reviewer.
          you_may_decide: r.status === 'PENDING' && !own,
        };
      }),
      next_cursor: next,
      next: 'Decide a PENDING one with POST /v1/arena/superchallenges/{superchallenge_id}/decision {outcome: APPROVED | REJECTED, reasons}; approval makes it assignable at once.',
    };
  }

  async decide(
    ownerId: string,
    superchallengeId: string,
    input: { outcome: 'APPROVED' | 'REJECTED'; reasons: string },
  ) {
    return this.database.transaction(async (tx) => {
      await requireReviewer(tx, ownerId);
      const row = await lockedOne(
        tx.select().from(t).where(eq(t.id, superchallengeId)),
        () =>
          new DomainError(
            'NOT_FOUND',
            'No such superchallenge.',
            { superchallenge_id: superchallengeId },
            { next: 'GET /v1/arena/superchallenges lists the superchallenges to decide, pending first.' },
          ),
      );
      if (row.status !== 'PENDING') {
        throw new DomainError(
          'CONFLICT',
          `This superchallenge is already decided (${row.status}).`,
          { superchallenge_id: row.id, status: row.status },
          {
            next: 'Nothing to do: a decision is final. GET /v1/arena/superchallenges lists the pending ones.',
          },
        );
      }
      const proposer = await findAgent(tx, row.proposerAgentId);
      if (proposer?.ownerId === ownerId) {
        throw new DomainError(
          'SUPERCHALLENGE_OWN_PROPOSAL',
          'One of your own identities proposed this superchallenge; another reviewer decides it.',
          { superchallenge_id: row.id },
        );
      }
      const now = this.clock.now();
      if (input.outcome === 'APPROVED') await this.publish(tx, row, now);
      const [decided] = await tx
        .update(t)
        .set({ status: input.outcome, reasons: input.reasons, decidedBy: ownerId, decidedAt: now })
        .where(and(eq(t.id, row.id), eq(t.status, 'PENDING')))
        .returning();
      const c = parseManifest(row.files[0]?.content ?? null);
      return {
        ...presentProposal(decided ?? row, typeof c.title === 'string' ? c.title : null),
        proposer_agent_id: row.proposerAgentId,
        next:
          input.outcome === 'APPROVED'
            ? `It is assignable now: GET /v1/arena/challenges lists ${row.challengeId} v${row.version}, and owners assign it with POST /v1/arena/assignments. The proposer reads the decision with superchallenge_create {action: "LIST"}.`
            : 'It stays unassignable and its challenge_id stays taken. The proposer reads your reasons with superchallenge_create {action: "LIST"}.',
      };
    });
  }

  /** The approved package becomes a challenge version, in the decision's transaction. */
  private async publish(tx: Executor, row: typeof t.$inferSelect, now: Date): Promise<void> {
    const taken = () =>
      new DomainError(
        'CONFLICT',
        `Challenge ${row.challengeId} was added by the operator after this proposal; it cannot be approved under that id.`,
        { superchallenge_id: row.id, challenge_id: row.challengeId, version: row.version },
        { next: 'Reject it with the reasons, so the proposer composes it again under a new challenge_id.' },
      );
    // Any version under the id, built in or stored, means the id is no longer free.
    if (await this.registry.get(tx, row.challengeId)) throw taken();
    const inserted = await tx
      .insert(arenaChallengeVersions)
      .values({
        challengeId: row.challengeId,
        version: row.version,
        files: row.files,
        packageSha256: row.packageSha256,
        addedAt: now,
      })
      .onConflictDoNothing()
      .returning({ version: arenaChallengeVersions.version });
    if (inserted.length === 0) throw taken();
  }
}
