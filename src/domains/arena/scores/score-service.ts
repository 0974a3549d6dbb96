import type { Executor } from '../../../storage/database.ts';
import type { ArenaKeys, PublishedJwk } from '../keys.ts';
import type { SignedScorePayload } from './payload.ts';
import { signScore } from './signing.ts';

/** The arena's signing service (`arenaScores`): signs verified results and publishes the keys. */
export class ArenaScores {
  constructor(private readonly keys: ArenaKeys) {}

  /** A compact JWS of the score, signed with the deployment's ACTIVE key (read with `ex` inside a transaction). */
  async sign(payload: SignedScorePayload, ex?: Executor): Promise<string> {
    return signScore(payload, await this.keys.active(ex));
  }

  /** The JWKS at `/.well-known/jwks.json`: every key, ACTIVE and RETIRED, newest first. */
  async jwks(): Promise<{ keys: PublishedJwk[] }> {
    return { keys: await this.keys.published() };
  }
}
