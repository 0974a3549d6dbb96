import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../kernel/clock.ts';
import { base32 } from '../../kernel/ids.ts';

/** How long a signed-out form (sign-in, sign-up) stays valid after its page was served. */
export const PRE_SESSION_MAX_MS = 60 * 60_000;

const PRE_VALUE = /^([a-z2-7]{26})\.([0-9a-z]{1,12})$/;

/**
 * CSRF tokens without server state: an HMAC, under the server secret, of what the browser
 * already holds in an HttpOnly cookie. Signed in, that is the session (its stored id); signed
 * out, a short-lived pre-session cookie. A page on another site can read neither, so it cannot
 * forge the token, and a token from one session is worthless in another.
 */
export class Csrf {
  constructor(
    private readonly secret: string,
    private readonly clock: Clock,
  ) {}

  forSession(sessionId: string): string {
    return this.mac('session', sessionId);
  }

  forPreSession(pre: string): string {
    return this.mac('pre', pre);
  }

  /** A new pre-session value: random, with its issue time so it can expire. */
  newPreSession(): string {
    return `${base32(randomBytes(16))}.${this.clock.now().getTime().toString(36)}`;
  }

  /** Whether a pre-session value is well formed and younger than PRE_SESSION_MAX_MS. */
  preSessionValid(pre: string | undefined): pre is string {
    const m = pre ? PRE_VALUE.exec(pre) : null;
    if (!m?.[2]) return false;
    const age = this.clock.now().getTime() - Number.parseInt(m[2], 36);
    return age >= -60_000 && age <= PRE_SESSION_MAX_MS;
  }

  /** Constant-time comparison of the expected token with what the form sent. */
  matches(expected: string, given: unknown): boolean {
    if (typeof given !== 'string' || given.length !== expected.length) return false;
    return timingSafeEqual(Buffer.from(expected), Buffer.from(given));
  }

  private mac(kind: string, value: string): string {
    return createHmac('sha256', this.secret)
      .update(`cairn-console-csrf\0${kind}\0${value}`)
      .digest('base64url');
  }
}
