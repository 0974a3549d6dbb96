import type { Doors } from '../../../framework/index.ts';
import { matchingPublicRoutes } from '../http/public-routes.ts';
import { matchingAgentPart } from './agent-part.ts';
import { matchingCampaignPart } from './campaign-part.ts';
import type { MatchingDoorServices } from './context.ts';
import { matchingOperations } from './owner-operations.ts';
import { matchingRoutes } from './routes.ts';

/**
 * Matching's doors besides its tools: the owners' requests and decisions, their `/v1` routes, the
 * consent section of an identity's page and the call for applications on a campaign's page.
 */
export const matchingDoors: Doors<MatchingDoorServices> = {
  nav: [{ key: 'matching', href: '/console/matching', label: 'Matching', order: 60 }],
  pages: matchingRoutes,
  ownerOperations: matchingOperations,
  publicApi: matchingPublicRoutes,
  parts: { agentPage: matchingAgentPart, campaignPage: matchingCampaignPart },
};
