import type { Doors } from '../../../framework/index.ts';
import { skillArenaOperations } from './arena-operations.ts';
import { skillCampaignOperations } from './campaign-operations.ts';
import type { SkillDoorServices } from './context.ts';
import { skillLifecycleOperations } from './lifecycle-operations.ts';
import { skillOperations } from './owner-operations.ts';
import { skillRoutes } from './routes.ts';
import { skillVersionOperations } from './version-operations.ts';

/** The skills area's doors besides its tools: the console's skill pages and the owner `/v1/skills…` routes. */
export const skillDoors: Doors<SkillDoorServices> = {
  nav: [{ key: 'skills', href: '/console/skills', label: 'Skills', order: 70 }],
  pages: skillRoutes,
  ownerOperations: [
    ...skillOperations,
    ...skillVersionOperations,
    ...skillCampaignOperations,
    ...skillLifecycleOperations,
    ...skillArenaOperations,
  ],
};
