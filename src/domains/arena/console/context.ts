import type { DoorContext } from '../../../framework/index.ts';
import type { ManagementService, Operators } from '../../identity/index.ts';
import type { ArenaReviewService } from '../cases/review.ts';
import type { ArenaOwnerService } from '../owner-arena.ts';
import type { ArenaRuns } from '../runs/run-service.ts';
import type { ArenaScores } from '../scores/score-service.ts';
import type { SuperchallengeReviewService } from '../superchallenges/review.ts';

/** The services the Arena's pages and owner routes use. */
export interface ArenaDoorServices {
  arena: ArenaOwnerService;
  arenaReview: ArenaReviewService;
  arenaSuperchallenges: SuperchallengeReviewService;
  /** Naming reviewers is an operator's. */
  operators: Operators;
  /** The owner's other identities, as teammates on the identity page's Arena section. */
  management: ManagementService;
  /** The public results and the score-signing keys (http/public-routes.ts). */
  arenaScores: ArenaScores;
  arenaRuns: ArenaRuns;
}

export type ConsoleContext = DoorContext<ArenaDoorServices>;
