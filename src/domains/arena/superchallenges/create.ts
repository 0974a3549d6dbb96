/**
 * Proposing a superchallenge (docs/arena.md, "Superchallenges"): an identity with the Arena on
 * composes existing SOLO challenge versions into a new challenge id, which is validated like an
 * operator's package and held PENDING until a reviewer approves it. Nothing can be assigned
 * before then: the package reaches arena_challenge_versions only with the approval (review.ts).
 */
import { and, count, desc, eq, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { cutPage } from '../../../kernel/paging.ts';
import type { Executor } from '../../../storage/database.ts';
import { type ChallengeProblem, checkChallengePackage } from '../challenges/index.ts';
import type { ChallengeRegistry } from '../challenges/registry.ts';
import { afterCursor, cursorAt } from '../runs/paging.ts';
import { arenaSuperchallenges } from '../tables.ts';
import { type ComposedPart, type Composition, composePackage, SUPERCHALLENGE_VERSION } from './compose.ts';
import { PROPOSAL_COLUMNS, presentProposal, SUPERCHALLENGE_LIMITS } from './present.ts';

export interface CreateInput {
  challengeId: string;
  title: string;
  statement?: string | undefined;
  composition: Composition;
  parts: Array<{ challenge_id: string; version?: number | undefined }>;
  timeLimitMinutes?: number | undefined;
}

const encoder = new TextEncoder();

function invalid(message: string, problems: ChallengeProblem[]): DomainError {
  return new DomainError(
    'VALIDATION_FAILED',
    `${message} (${problems.length} problem(s)); nothing was stored.`,
    { problems },
    {
      next: 'Fix every problem listed in details.problems and call superchallenge_create again with a fresh idempotency_key; GET /v1/arena/challenges (your owner) lists the versions that can be parts.',
    },
  );
}

/** At most SUPERCHALLENGE_LIMITS.pendingPerIdentity waiting per identity, decided under its lock. */
async function checkPending(ex: Executor, agentId: string): Promise<void> {
  await ex.execute(sql`select pg_advisory_xact_lock(hashtext(${`arena-superchallenge:${agentId}`}))`);
  const [row] = await ex
    .select({ n: count() })
    .from(arenaSuperchallenges)
    .where(
      and(eq(arenaSuperchallenges.proposerAgentId, agentId), eq(arenaSuperchallenges.status, 'PENDING')),
    );
  const pending = Number(row?.n ?? 0);
  const limit = SUPERCHALLENGE_LIMITS.pendingPerIdentity;
  if (pending < limit) return;
  throw new DomainError(
    'SUPERCHALLENGE_PENDING_LIMIT',
    `You have ${pending} superchallenges waiting for a reviewer; at most ${limit} may wait at once.`,
    { limit, pending },
  );
}

/** The id must be new: no built-in, operator-added version or other superchallenge has it. */
async function checkIdFree(ex: Executor, registry: ChallengeRegistry, agentId: string, id: string) {
  const [held] = await ex
    .select({
      id: arenaSuperchallenges.id,
      by: arenaSuperchallenges.proposerAgentId,
      status: arenaSuperchallenges.status,
    })
    .from(arenaSuperchallenges)
    .where(eq(arenaSuperchallenges.challengeId, id))
    .limit(1);
  const existing = held ? undefined : await registry.get(ex, id);
  if (!held && !existing) return;
  const by = held
    ? `a superchallenge (${held.status})`
    : existing?.origin === 'BUILT_IN'
      ? 'a built-in challenge'
      : 'an operator-added challenge';
  throw new DomainError(
    'CONFLICT',
    `The challenge_id '${id}' is already taken by ${by}; a superchallenge needs a new id.`,
    {
      challenge_id: id,
      taken_by: held ? 'SUPERCHALLENGE' : (existing?.origin ?? 'OPERATOR'),
      // Only the proposer learns which of its own superchallenges holds the id.
      ...(held && held.by === agentId ? { superchallenge_id: held.id } : {}),
    },
    {
      next: 'Choose another challenge_id (a slug no challenge uses yet) and call superchallenge_create again.',
    },
  );
}

/** Each part as the registry serves it; every unknown or TEAM part named at once. */
async function resolveParts(
  ex: Executor,
  registry: ChallengeRegistry,
  parts: CreateInput['parts'],
): Promise<ComposedPart[]> {
  const problems: ChallengeProblem[] = [];
  const resolved: ComposedPart[] = [];
  for (const [i, part] of parts.entries()) {
    const path = `parts[${i}]`;
    const found = await registry.get(ex, part.challenge_id, part.version);
    if (!found) {
      const which = part.version === undefined ? '' : ` version ${part.version}`;
      problems.push({
        path,
        rule: 'UNKNOWN_PART',
        message: `No challenge ${part.challenge_id}${which} can be assigned`,
      });
      continue;
    }
    const c = found.loaded.challenge;
    if (c.mode === 'TEAM') {
      problems.push({
        path,
        rule: 'TEAM_PART',
        message: `${c.id} v${c.version} is a TEAM challenge; only SOLO challenges can be parts (a TEAM_SPLIT makes the team itself)`,
      });
      continue;
    }
    resolved.push({ challengeId: c.id, version: c.version, loaded: found.loaded });
  }
  if (problems.length > 0) throw invalid('The parts cannot be composed', problems);
  return resolved;
}

/** Validates and stores a proposal (PENDING); the caller's transaction holds the lock. */
export async function createSuperchallenge(
  ex: Executor,
  registry: ChallengeRegistry,
  agentId: string,
  input: CreateInput,
  now: Date,
) {
  await checkPending(ex, agentId);
  await checkIdFree(ex, registry, agentId, input.challengeId);
  const parts = await resolveParts(ex, registry, input.parts);
  const files = composePackage({ ...input, parts });
  // The very validator `cairn arena add-challenge` runs, over the bytes that will be stored.
  const checked = checkChallengePackage(
    files.map((f) => ({ path: f.path, bytes: encoder.encode(f.content) })),
    { id: input.challengeId, version: SUPERCHALLENGE_VERSION },
  );
  if (!checked.ok) throw invalid('The composed challenge package is invalid', checked.problems);
  const [row] = await ex
    .insert(arenaSuperchallenges)
    .values({
      id: newId('sch', now),
      challengeId: input.challengeId,
      version: SUPERCHALLENGE_VERSION,
      proposerAgentId: agentId,
      composition: input.composition,
      parts: parts.map((p) => ({ challenge_id: p.challengeId, version: p.version })),
      files,
      packageSha256: checked.loaded.sha256,
      status: 'PENDING',
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) {
    // Another proposal took the id between the check and the insert: refuse naming it.
    await checkIdFree(ex, registry, agentId, input.challengeId);
    throw new Error('superchallenge insert lost without a holder');
  }
  const c = checked.loaded.challenge;
  return {
    ...presentProposal(row, c.title),
    mode: c.mode,
    ...(c.team_size ? { team_size: c.team_size } : {}),
    time_limit_minutes: c.time_limit_minutes,
    allowed_tools: c.allowed_tools,
    max_score: c.verifier.rubric.reduce((sum, line) => sum + line.points, 0),
    rubric: c.verifier.rubric.map((line) => ({
      id: line.id,
      points: line.points,
      description: line.description,
    })),
    files: files.map((f) => f.path),
    next: 'A reviewer must approve it before anyone can be assigned it. Follow its status with superchallenge_create {action: "LIST"} (a fresh idempotency_key); once APPROVED, your owner assigns it with POST /v1/arena/assignments {agent_id, challenge_id}.',
  };
}

/** The caller's own superchallenges, newest first, with each decision once made. */
export async function ownSuperchallenges(
  ex: Executor,
  secret: string,
  agentId: string,
  input: { limit: number; cursor?: string | undefined },
) {
  const binding = `arena-superchallenges\n${agentId}`;
  const t = arenaSuperchallenges;
  const rows = await ex
    .select({
      ...PROPOSAL_COLUMNS,
      // challenge.json is the first file (compose.ts): the title without loading the package.
      title: sql<string>`((${t.files}->0->>'content')::jsonb)->>'title'`,
    })
    .from(t)
    .where(and(eq(t.proposerAgentId, agentId), afterCursor(secret, binding, input.cursor, t.createdAt, t.id)))
    .orderBy(desc(t.createdAt), desc(t.id))
    .limit(input.limit + 1);
  const page = cutPage(rows, input.limit, (last) =>
    cursorAt(secret, binding, { at: last.createdAt, id: last.id }),
  );
  return {
    superchallenges: page.rows.map((row) => presentProposal(row, row.title)),
    next_cursor: page.next,
    next: 'A PENDING superchallenge waits for a reviewer; an APPROVED one can be assigned by your owner (POST /v1/arena/assignments {agent_id, challenge_id}); a REJECTED one keeps its id, so propose a changed one under a new challenge_id.',
  };
}
