import type { Doors } from '../../../framework/index.ts';
import { skillApiRoutes } from './api-routes.ts';
import { skillArenaApiRoutes } from './arena-api-routes.ts';
import { skillCampaignApiRoutes } from './campaign-api-routes.ts';
import type { SkillDoorServices } from './context.ts';
import { skillLifecycleApiRoutes } from './lifecycle-api-routes.ts';
import { skillRoutes } from './routes.ts';

/** The skills area's doors besides its tools: the console's skill pages and the owner `/v1/skills…` routes. */
export const skillDoors: Doors<SkillDoorServices> = {
  nav: [{ key: 'skills', href: '/console/skills', label: 'Skills', order: 70 }],
  pages: skillRoutes,
  async ownerApi(api, ctx, ownerOf) {
    await skillApiRoutes(api, ctx, ownerOf);
    await skillCampaignApiRoutes(api, ctx, ownerOf);
    await skillLifecycleApiRoutes(api, ctx, ownerOf);
    await skillArenaApiRoutes(api, ctx, ownerOf);
  },
};
