import type { Area } from '../../framework/index.ts';
import { publishedServerLimits } from './limits.ts';
import { capabilityOperations } from './operations.ts';

/** capabilities_describe: what an identity can do now and why. */
export const capabilitiesArea = {
  name: 'capabilities',
  tables: {},
  errors: {},
  operations: capabilityOperations,
  limits: publishedServerLimits,
  start: ({ limits }) => ({ services: { limits } }),
} satisfies Area;
