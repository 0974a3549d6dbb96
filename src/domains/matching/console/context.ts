import type { DoorContext } from '../../../framework/index.ts';
import type { MatchingOwnerService } from '../owner-matching.ts';

/** The services matching's pages and owner routes use. */
export interface MatchingDoorServices {
  matching: MatchingOwnerService;
}

export type ConsoleContext = DoorContext<MatchingDoorServices>;
