import type { Area } from '../operations/index.ts';
import { builtinChallenges } from './challenges/index.ts';
import { ARENA_ERRORS } from './errors.ts';
import { ArenaKeys, KeyChurnError } from './keys.ts';
import { ArenaOwnerService } from './owner-arena.ts';
import { ArenaScores } from './scores/score-service.ts';
import * as tables from './tables.ts';

/**
 * The arena (docs/arena.md). So far: the owner's separate activation per identity, and the
 * signed-score foundation: the deployment's Ed25519 keys (sealed, shared by replicas, rotated by
 * the operator), signing a verified result as a compact JWS, and the published JWKS. Its tools
 * land with runs and challenges.
 */

export { scoreSignatureInvalid } from './errors.ts';
export { ArenaKeys, type PublishedJwk } from './keys.ts';
export { ArenaOwnerService } from './owner-arena.ts';
export { canonicalScore, type SignedScorePayload, signedScorePayload } from './scores/payload.ts';
export { ArenaScores } from './scores/score-service.ts';
export { MAX_SIGNED_SCORE_CHARS, SCORE_JWS_TYPE, verifyScore } from './scores/signing.ts';

export const arenaArea = {
  name: 'arena',
  tables,
  errors: ARENA_ERRORS,
  operations: [],
  async start({ database, clock, secret, logger }) {
    // The shipped exercises, validated now: an invalid built-in stops the start, not a run.
    const challenges = await builtinChallenges();
    const keys = new ArenaKeys(database, clock, secret, (kid) =>
      logger.warn(
        { kid },
        'the active arena signing key could not be unsealed (did the server secret change?); it is retired, still published, and a new one signs from now on',
      ),
    );
    // Made (or checked) now, so the first signature and the JWKS need no key generation. Replicas
    // with different secrets replacing each other's key do not stop the start: signing says so.
    await keys.active().catch((err) => {
      if (!(err instanceof KeyChurnError)) throw err;
      logger.error({ err: err.message }, 'no arena signing key could be kept');
    });
    return {
      services: {
        arenaScores: new ArenaScores(keys),
        arena: new ArenaOwnerService(database, clock, challenges),
      },
      workers: [],
    };
  },
} satisfies Area;

type OwnTables = typeof tables;
declare module '../../storage/tables.ts' {
  interface Tables extends OwnTables {}
}
