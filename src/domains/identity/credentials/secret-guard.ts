import type { Clock } from '../../../kernel/clock.ts';
import { OAuthError } from '../../../kernel/oauth-error.ts';
import type { Database } from '../../../storage/database.ts';
import { addressKey } from '../owners.ts';
import { FailureThrottle, secondsUntil, type ThrottleRule } from '../throttle.ts';

const MINUTE = 60_000;

/**
 * Failed client authentications (wrong client secrets, unknown bootstrap tokens, unknown
 * clients) before a client id is locked out for the address that guessed, or the address is
 * locked out for every client, for a while (RFC 6749 §10.10, RFC 9700 §4.15: guessing secrets
 * must be made impractical). A client's lock is per address (issue 40): a stranger's wrong
 * guesses must not lock the client's own owner out, who holds the right secret elsewhere.
 */
export const SECRET_THROTTLE = {
  client: { max: 10, windowMs: 10 * MINUTE, lockMs: 10 * MINUTE },
  address: { max: 30, windowMs: 10 * MINUTE, lockMs: 10 * MINUTE },
} as const;

/** Guards the token and revocation endpoints against secret guessing, on every replica alike. */
export class SecretGuard {
  private readonly throttle: FailureThrottle;

  constructor(
    database: Database,
    private readonly clock: Clock,
  ) {
    this.throttle = new FailureThrottle(database, clock);
  }

  /** Refuses at once (429) while the client id or the address is locked out. */
  async check(clientId: string | undefined, address: string): Promise<void> {
    const locked = await this.throttle.lockedUntil(this.keys(clientId, address).map((k) => k.key));
    if (locked) throw this.lockedOut(locked);
  }

  /** Counts a failed client authentication; the answer is 429 once this failure locks. */
  async failed(clientId: string | undefined, address: string): Promise<OAuthError | null> {
    const locked = await this.throttle.fail(this.keys(clientId, address));
    return locked ? this.lockedOut(locked) : null;
  }

  private keys(clientId: string | undefined, address: string) {
    const keys: Array<{ key: string; rule: ThrottleRule }> = [
      { key: `oauth-${addressKey(address)}`, rule: SECRET_THROTTLE.address },
    ];
    if (clientId) {
      const key = `oauth-client:${clientId.slice(0, 200)}|${addressKey(address)}`;
      keys.push({ key, rule: SECRET_THROTTLE.client });
    }
    return keys;
  }

  private lockedOut(until: Date): OAuthError {
    const seconds = secondsUntil(until, this.clock.now());
    return new OAuthError(
      'temporarily_unavailable',
      `Too many failed client authentications for this client from this address, or from this address; try again in ${seconds} s.`,
      seconds,
    );
  }
}
