import type { DoorContext } from '../../../framework/index.ts';
import type { MatchingOwnerService } from '../owner-matching.ts';
import type { PublicIntents } from '../public-intents.ts';

/** The services matching's pages and owner routes use. */
export interface MatchingDoorServices {
  matching: MatchingOwnerService;
  /** The intents their owners allowed public (http/public-routes.ts). */
  publicIntents: PublicIntents;
}

export type ConsoleContext = DoorContext<MatchingDoorServices>;
