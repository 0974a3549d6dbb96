import type { Area } from '../../framework/index.ts';
import { describeLimits } from '../../kernel/published-limits.ts';
import { publishedServerLimits } from './limits.ts';
import { capabilityOperations } from './operations.ts';

/** capabilities_describe: what an identity can do now and why. */
export const capabilitiesArea = {
  name: 'capabilities',
  tables: {},
  errors: {},
  operations: capabilityOperations,
  limits: (config) => [...describeLimits(), ...publishedServerLimits(config)],
  start: ({ limits }) => ({ services: { limits } }),
} satisfies Area;
