import type { PublishedLimit } from '../../../kernel/limits.ts';
import { arenaSuperchallenges } from '../tables.ts';

/** The numbers of superchallenges (docs/arena.md, "Superchallenges"). */
export const SUPERCHALLENGE_LIMITS = {
  minParts: 2,
  maxParts: 4,
  /** Proposals of one identity waiting for a reviewer at once. */
  pendingPerIdentity: 5,
  introChars: 4_000,
  reasonsChars: 8_000,
  list: { min: 1, max: 50, default: 25 },
} as const;

/** What `/v1/public/limits` publishes of them. */
export const PUBLISHED_SUPERCHALLENGE_LIMITS: PublishedLimit[] = [
  {
    area: 'Arena superchallenges',
    limit: `${SUPERCHALLENGE_LIMITS.minParts}-${SUPERCHALLENGE_LIMITS.maxParts} parts; at most ${SUPERCHALLENGE_LIMITS.pendingPerIdentity} waiting for a reviewer per identity; the statement intro up to ${SUPERCHALLENGE_LIMITS.introChars} characters`,
    values: {
      min_parts: SUPERCHALLENGE_LIMITS.minParts,
      max_parts: SUPERCHALLENGE_LIMITS.maxParts,
      pending_per_identity: SUPERCHALLENGE_LIMITS.pendingPerIdentity,
      intro_chars: SUPERCHALLENGE_LIMITS.introChars,
    },
  },
];

const t = arenaSuperchallenges;
/** The columns presentProposal reads: both the proposer's list and the reviewers' queue select them. */
export const PROPOSAL_COLUMNS = {
  id: t.id,
  challengeId: t.challengeId,
  version: t.version,
  composition: t.composition,
  parts: t.parts,
  packageSha256: t.packageSha256,
  status: t.status,
  createdAt: t.createdAt,
  reasons: t.reasons,
  decidedAt: t.decidedAt,
};

type Row = Pick<typeof arenaSuperchallenges.$inferSelect, keyof typeof PROPOSAL_COLUMNS>;

/**
 * A superchallenge as its proposer sees it: the decision's outcome and reasons once made, never
 * which reviewer made it.
 */
export function presentProposal(row: Row, title: string | null) {
  return {
    superchallenge_id: row.id,
    challenge_id: row.challengeId,
    version: row.version,
    title,
    composition: row.composition,
    parts: row.parts,
    status: row.status,
    package_sha256: row.packageSha256,
    created_at: row.createdAt.toISOString(),
    decision:
      row.status === 'PENDING'
        ? null
        : { outcome: row.status, reasons: row.reasons, decided_at: row.decidedAt?.toISOString() ?? null },
  };
}
