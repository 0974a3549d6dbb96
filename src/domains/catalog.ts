import type { PublishedLimit } from '../kernel/limits.ts';
import { capabilityOperations } from './capabilities/operations.ts';
import { identityAlwaysOperations, identityOperations } from './identity/operations.ts';
import type { IdentityService } from './identity/service.ts';
import type { Operation } from './operations/operation.ts';

/** The services operations reach through their context. */
export interface AppServices {
  identity: IdentityService;
  limits: PublishedLimit[];
}

/** Every operation Cairn offers, in SPEC's group order. Areas append theirs as they land. */
export const OPERATIONS: Array<Operation<AppServices>> = [
  ...identityAlwaysOperations,
  ...capabilityOperations,
  ...identityOperations,
] as Array<Operation<AppServices>>;
