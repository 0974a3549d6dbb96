import type { Doors } from '../../../framework/index.ts';
import { arenaPublicRoutes } from '../http/public-routes.ts';
import { arenaAgentPart } from './agent-part.ts';
import { arenaCaseRoutes } from './case-routes.ts';
import type { ArenaDoorServices } from './context.ts';
import { arenaOperations } from './owner-operations.ts';
import { arenaReviewerOperations } from './reviewer-operations.ts';
import { arenaReviewerRoutes } from './reviewer-routes.ts';
import { arenaSuperchallengeOperations } from './superchallenge-operations.ts';
import { arenaSuperchallengeRoutes } from './superchallenge-routes.ts';

/**
 * The Arena's doors besides its tools: the reviewers' pages (cases, superchallenges) and the
 * operator's naming of reviewers; their `/v1` routes; the public results and signing keys; and
 * its section of an identity's page.
 */
export const arenaDoors: Doors<ArenaDoorServices> = {
  pages(app, ctx) {
    arenaCaseRoutes(app, ctx);
    arenaSuperchallengeRoutes(app, ctx);
    arenaReviewerRoutes(app, ctx);
  },
  ownerOperations: [...arenaOperations, ...arenaSuperchallengeOperations, ...arenaReviewerOperations],
  publicRoutes: (app, ctx) =>
    arenaPublicRoutes(app, {
      scores: ctx.arenaScores,
      runs: ctx.arenaRuns,
      ratePerMinute: ctx.config.publicRateLimitPerMinute,
      redis: ctx.redis,
    }),
  parts: { agentPage: arenaAgentPart },
};
