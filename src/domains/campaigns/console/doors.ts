import type { Doors } from '../../../framework/index.ts';
import { boardOperations } from './board-api-routes.ts';
import { boardRoutes } from './board-routes.ts';
import { campaignOperations } from './campaign-api-routes.ts';
import { campaignRoutes } from './campaign-routes.ts';
import type { CampaignDoorServices } from './context.ts';
import { findingRoutes } from './findings-routes.ts';
import { liveRoutes } from './live-routes.ts';
import { mailOperations } from './mail-api-routes.ts';
import { mailRoutes } from './mail-routes.ts';
import { researchOperations } from './research-api-routes.ts';
import { researchFindingOperations } from './research-findings-routes.ts';
import { researchReportOperations } from './research-report-routes.ts';
import { researchRoutes } from './research-routes.ts';
import { rewardsOperations } from './rewards-api-routes.ts';
import { rewardRoutes } from './rewards-routes.ts';

/**
 * Campaigns' doors besides their tools: the owner's campaign pages (and their live stream),
 * imports, findings and reports, rewards and funds, mailboxes and public boards, with their
 * `/v1` routes.
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
    mailRoutes(app, ctx);
    boardRoutes(app, ctx);
  },
  ownerOperations: [
    ...campaignOperations,
    ...researchOperations,
    ...researchFindingOperations,
    ...researchReportOperations,
    ...rewardsOperations,
    ...mailOperations,
    ...boardOperations,
  ],
};
