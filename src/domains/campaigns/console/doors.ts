import type { Doors } from '../../../framework/index.ts';
import { campaignPublicRoutes } from '../http/public-routes.ts';
import { boardOperations } from './board-operations.ts';
import { boardRoutes } from './board-routes.ts';
import { campaignOperations } from './campaign-operations.ts';
import { campaignRoutes } from './campaign-routes.ts';
import type { CampaignDoorServices } from './context.ts';
import { findingRoutes } from './findings-routes.ts';
import { liveRoutes } from './live-routes.ts';
import { researchFindingOperations } from './research-finding-operations.ts';
import { researchOperations } from './research-operations.ts';
import { researchReportOperations } from './research-report-operations.ts';
import { researchRoutes } from './research-routes.ts';
import { rewardsOperations } from './rewards-operations.ts';
import { rewardRoutes } from './rewards-routes.ts';

/**
 * Campaigns' doors besides their tools: the owner's campaign pages (and their live stream),
 * imports, findings and reports, rewards and funds and public boards, with their `/v1`
 * operations; the public board and report lists. A campaign's mailbox pages are mail's.
 */
export const campaignDoors: Doors<CampaignDoorServices> = {
  nav: [
    { key: 'campaigns', href: '/console/campaigns', label: 'Campaigns', order: 40 },
    { key: 'boards', href: '/console/boards', label: 'Boards', order: 50 },
    { key: 'rewards', href: '/console/rewards', label: 'Rewards', order: 80 },
  ],
  pages(app, ctx) {
    campaignRoutes(app, ctx);
    liveRoutes(app, ctx);
    researchRoutes(app, ctx);
    findingRoutes(app, ctx);
    rewardRoutes(app, ctx);
    boardRoutes(app, ctx);
  },
  publicApi: campaignPublicRoutes,
  ownerOperations: [
    ...campaignOperations,
    ...researchOperations,
    ...researchFindingOperations,
    ...researchReportOperations,
    ...rewardsOperations,
    ...boardOperations,
  ],
};
