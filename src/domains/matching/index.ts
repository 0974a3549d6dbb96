import type { Area } from '../../framework/index.ts';
import { NotifyWaiter } from '../../storage/notify-waiter.ts';
import { jobFailureLevel } from '../../storage/unavailable.ts';
import { Housekeeper } from '../identity/index.ts';
import { MATCHING_CHANNEL } from './changes.ts';
import { matchingDoors } from './console/doors.ts';
import { MATCHING_ERRORS } from './errors.ts';
import { matchingGuestPairing } from './guest-pairing.ts';
import { PUBLISHED_MATCHING_LIMITS } from './limits.ts';
import { matchingFeed } from './matching-feed.ts';
import { matchingTools } from './matching-tools.ts';
import { MatchingOwnerService } from './owner-matching.ts';
import { PublicIntents } from './public-intents.ts';
import { sweepMatching } from './sweep.ts';
import * as tables from './tables.ts';

export { intentFieldArgs, MAX_INTENT_HOURS } from './intents.ts';
export { MatchingOwnerService } from './owner-matching.ts';
export { REQUEST_TTL_HOURS } from './proposals.ts';
export { PublicIntents } from './public-intents.ts';

/** Matching (docs/matching.md): owner consent, intents, one bounded proposal ending in a campaign join. */
export const matchingArea = {
  name: 'matching',
  doors: matchingDoors,
  tables,
  errors: MATCHING_ERRORS,
  operations: matchingTools,
  limits: PUBLISHED_MATCHING_LIMITS,
  extensions: { guestPairing: matchingGuestPairing },
  start({ database, clock, secret, logger }) {
    // This process's matching wake-ups (one LISTEN), for matching_watch.
    const waiter = new NotifyWaiter(database, MATCHING_CHANNEL);
    const sweeper = new Housekeeper(
      () => sweepMatching(database, clock.now()),
      (result) =>
        result instanceof Error
          ? logger[jobFailureLevel(result)](
              { err: result },
              'matching sweep failed; it runs again in ten minutes',
            )
          : logger.debug({ result }, 'matching sweep done'),
    );
    return {
      services: {
        matchingDeps: { secret, waiter },
        matching: new MatchingOwnerService(database, clock),
        publicIntents: new PublicIntents(database, secret, clock),
      },
      // Identities with matching on can be woken for changes of their requests.
      feeds: [matchingFeed(database, secret, waiter)],
      workers: [sweeper, { start: () => {}, drain: async () => waiter.close(), stop: () => {} }],
    };
  },
} satisfies Area;

type OwnTables = typeof tables;
declare module '../../storage/tables.ts' {
  interface Tables extends OwnTables {}
}

/** The ids this area makes (kernel/ids.ts). */
declare module '../../kernel/ids.ts' {
  interface IdPrefixes {
    /** matching intents. */
    mint: 'matching';
    /** matching requests. */
    mreq: 'matching';
  }
}
