import type { PublishedLimit } from '../kernel/limits.ts';
import { capabilityOperations } from './capabilities/index.ts';
import {
  type DomainVerifier,
  type IdentityService,
  identityAlwaysOperations,
  identityOperations,
} from './identity/index.ts';
import type { Operation } from './operations/index.ts';

/** The services operations reach through their context. */
export interface AppServices {
  identity: IdentityService;
  domains: DomainVerifier;
  limits: PublishedLimit[];
}

/** Every operation Cairn offers, in SPEC's group order. Areas append theirs as they land. */
export const OPERATIONS: Array<Operation<AppServices>> = [
  ...identityAlwaysOperations,
  ...capabilityOperations,
  ...identityOperations,
] as Array<Operation<AppServices>>;
