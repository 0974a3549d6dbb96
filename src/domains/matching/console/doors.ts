import type { Doors } from '../../../framework/index.ts';
import { matchingAgentPart } from './agent-part.ts';
import { matchingApiRoutes } from './api-routes.ts';
import { matchingCampaignPart } from './campaign-part.ts';
import type { MatchingDoorServices } from './context.ts';
import { matchingRoutes } from './routes.ts';

/**
 * Matching's doors besides its tools: the owners' requests and decisions, their `/v1` routes, the
 * consent section of an identity's page and the call for applications on a campaign's page.
 */
export const matchingDoors: Doors<MatchingDoorServices> = {
  pages: matchingRoutes,
  ownerApi: matchingApiRoutes,
  parts: { agentPage: matchingAgentPart, campaignPage: matchingCampaignPart },
};
