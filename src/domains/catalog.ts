import type { PublishedLimit } from '../kernel/limits.ts';
import { type CampaignDeps, campaignOperations } from './campaigns/index.ts';
import { capabilityOperations } from './capabilities/index.ts';
import {
  type DomainVerifier,
  type IdentityService,
  identityAlwaysOperations,
  identityOperations,
} from './identity/index.ts';
import type { Operation } from './operations/index.ts';
import {
  evidenceOperations,
  type ReadingService,
  readingOperations,
  type SearchProvider,
} from './reading/index.ts';

/** The services operations reach through their context. */
export interface AppServices {
  identity: IdentityService;
  domains: DomainVerifier;
  limits: PublishedLimit[];
  reading: ReadingService;
  /** The configured web_search provider; null when the operator configured none. */
  search: SearchProvider | null;
  campaignDeps: CampaignDeps;
}

/** Every operation Cairn offers, in SPEC's group order. Areas append theirs as they land. */
export const OPERATIONS: Array<Operation<AppServices>> = [
  ...identityAlwaysOperations,
  ...capabilityOperations,
  ...readingOperations,
  ...campaignOperations,
  ...evidenceOperations,
  ...identityOperations,
] as Array<Operation<AppServices>>;
