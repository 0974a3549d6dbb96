import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Clock } from '../../kernel/clock.ts';
import { DomainError } from '../../kernel/errors.ts';
import { base32, hashSecret, newId } from '../../kernel/ids.ts';
import type { Database, Executor } from '../../storage/database.ts';
import type { ConsoleOwner } from '../../web/console/context.ts';
import * as agentRepo from './agent-repo.ts';
import { IDENTITY_LIMITS } from './credentials/limits.ts';
import { OwnerTokenService } from './credentials/owner-tokens.ts';
import * as ownerRepo from './owner-repo.ts';
import { FailureThrottle, secondsUntil } from './throttle.ts';

/** A console session ends after this long without a request… */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** …and in any case this long after sign-in. */
export const SESSION_MAX_MS = 7 * 86_400_000;
/** How stale last_seen_at may get before a request writes it again (keeps page loads read-only). */
const TOUCH_MS = 60_000;

const MINUTE = 60_000;
/** Failed sign-ins allowed per account and per client address within the window, then a lock. */
export const SIGNIN_THROTTLE = {
  account: { max: 5, windowMs: 15 * MINUTE, lockMs: 15 * MINUTE },
  address: { max: 20, windowMs: 15 * MINUTE, lockMs: 15 * MINUTE },
} as const;

/** The cookie value: 32 random bytes in base32; only its SHA-256 is stored (as the session id). */
const SESSION_VALUE = /^[a-z2-7]{52}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}\.[^\s@]{2,63}$/;

export type { ConsoleOwner } from '../../web/console/context.ts';

/** A console session just started: the cookie value is shown to the browser once, never stored. */
export interface StartedSession {
  owner: ConsoleOwner;
  cookie: string;
  expires_at: string;
}

/**
 * Owners' console accounts: sign-up (first owner, or anyone when the operator opens it),
 * sign-in with argon2id and a database-counted throttle, and cookie sessions stored hashed.
 */
export class OwnerService {
  private dummyHash: Promise<string> | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly opts: { openSignup: boolean },
  ) {
    this.throttle = new FailureThrottle(database, clock);
    this.tokens = new OwnerTokenService(database, clock);
  }

  private readonly throttle: FailureThrottle;
  /** The owners' API tokens (cd_own_) for the `/v1/…` console operations. */
  readonly tokens: OwnerTokenService;

  /** Whether a new account may be created now: FIRST (no owner yet), OPEN (operator's choice) or CLOSED. */
  async signUpState(): Promise<'FIRST' | 'OPEN' | 'CLOSED'> {
    if (!(await ownerRepo.anyOwnerExists(this.database.db))) return 'FIRST';
    return this.opts.openSignup ? 'OPEN' : 'CLOSED';
  }

  /**
   * Creates an owner account and signs it in. Refused with SIGNUP_CLOSED once an owner exists,
   * unless sign-up is open; decided under a lock, so two first sign-ups cannot both win.
   */
  async signUp(emailInput: string, password: string): Promise<StartedSession> {
    const email = checkEmail(emailInput);
    const { minChars, maxChars } = IDENTITY_LIMITS.password;
    if (password.length < minChars || password.length > maxChars) {
      throw invalid('password', `The password must be ${minChars}-${maxChars} characters.`);
    }
    if ((await this.signUpState()) === 'CLOSED') throw signupClosed();
    const passwordHash = await hash(password);
    return this.database.transaction(async (tx) => {
      await ownerRepo.lockSignup(tx);
      if (!this.opts.openSignup && (await ownerRepo.anyOwnerExists(tx))) throw signupClosed();
      const now = this.clock.now();
      const id = newId('own', now);
      if (!(await agentRepo.insertOwner(tx, { id, email, passwordHash, createdAt: now }))) {
        throw new DomainError('CONFLICT', 'An account with this email already exists; sign in instead.');
      }
      return this.startSession(tx, { id, email }, now);
    });
  }

  /**
   * Checks an email and password and starts a session. A wrong email and a wrong password get the
   * same SIGNIN_FAILED, after the same argon2 work. Failures count per account and per address;
   * past the limit both are refused with SIGNIN_THROTTLED until the lock ends.
   */
  async signIn(emailInput: string, password: string, address: string): Promise<StartedSession> {
    const email = emailInput.trim().toLowerCase();
    if (email.length > IDENTITY_LIMITS.email.maxChars)
      throw invalid('email', 'The email address is too long.');
    if (password.length > IDENTITY_LIMITS.password.maxChars)
      throw invalid('password', 'The password is too long.');
    const accountKey = `email:${email}`;
    const keys = [accountKey, addressKey(address)];
    const now = this.clock.now();
    const locked = await this.throttle.lockedUntil(keys);
    if (locked) throw throttled(locked, now);

    const found = await ownerRepo.findOwnerCredentials(this.database.db, email);
    // An unknown email is verified against a fixed hash, so timing does not tell which emails exist.
    const stored = found?.passwordHash ?? (await this.getDummyHash());
    const ok = (await verify(stored, password).catch(() => false)) && found !== null;
    if (!ok) {
      const lockedNow = await this.throttle.fail([
        { key: accountKey, rule: SIGNIN_THROTTLE.account },
        { key: keys[1]!, rule: SIGNIN_THROTTLE.address },
      ]);
      if (lockedNow) throw throttled(lockedNow, now);
      throw new DomainError('SIGNIN_FAILED', 'That email and password do not match an account.');
    }
    await this.throttle.clear(accountKey);
    return this.startSession(this.database.db, { id: found.id, email: found.email }, now);
  }

  /** The owner behind a session cookie, or null when it is unknown, ended or expired. */
  async resolveSession(cookie: string): Promise<{ owner: ConsoleOwner; sessionId: string } | null> {
    if (!SESSION_VALUE.test(cookie)) return null;
    const id = hashSecret(cookie);
    const now = this.clock.now();
    const row = await ownerRepo.findLiveSession(this.database.db, id, now);
    if (!row) return null;
    if (now.getTime() - row.lastSeenAt.getTime() > TOUCH_MS) {
      const expires = Math.min(now.getTime() + SESSION_IDLE_MS, row.createdAt.getTime() + SESSION_MAX_MS);
      await ownerRepo.touchSession(this.database.db, id, now, new Date(expires));
    }
    return { owner: { id: row.ownerId, email: row.email }, sessionId: id };
  }

  /** Ends the session behind a cookie; an unknown or ended one is already signed out. */
  async signOut(cookie: string): Promise<void> {
    if (!SESSION_VALUE.test(cookie)) return;
    await ownerRepo.endSession(this.database.db, hashSecret(cookie), this.clock.now());
  }

  private async startSession(ex: Executor, owner: ConsoleOwner, now: Date): Promise<StartedSession> {
    const cookie = base32(randomBytes(32));
    const expiresAt = new Date(now.getTime() + SESSION_IDLE_MS);
    await ownerRepo.insertSession(ex, {
      id: hashSecret(cookie),
      ownerId: owner.id,
      createdAt: now,
      expiresAt,
    });
    return { owner, cookie, expires_at: expiresAt.toISOString() };
  }

  private getDummyHash(): Promise<string> {
    this.dummyHash ??= hash(`cairn-no-such-account-${base32(randomBytes(16))}`);
    return this.dummyHash;
  }
}

/**
 * The throttle key of a client address. An IPv6 client usually holds a whole /64, so IPv6
 * addresses count per /64; IPv4 (and IPv4-mapped IPv6) per address.
 */
export function addressKey(address: string): string {
  const bare = address.trim().toLowerCase().split('%')[0] ?? '';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare);
  if (mapped) return `ip:${mapped[1]}`;
  if (!bare.includes(':')) return `ip:${bare.slice(0, 64)}`;
  const prefix = ipv6Prefix64(bare);
  return prefix ? `ip:${prefix}::/64` : `ip:${bare.slice(0, 64)}`;
}

function ipv6Prefix64(address: string): string | null {
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string | undefined) =>
    part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : [];
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (fill < 0 || head.length + fill + tail.length !== 8) return null;
  const all = [...head, ...Array<string>(fill).fill('0'), ...tail];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return all
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':');
}

function checkEmail(input: string): string {
  const email = input.trim().toLowerCase();
  if (email.length > IDENTITY_LIMITS.email.maxChars || !EMAIL.test(email)) {
    throw invalid('email', 'Enter an email address such as name@example.org.');
  }
  return email;
}

function invalid(field: string, message: string): DomainError {
  return new DomainError('VALIDATION_FAILED', message, {
    detail: [{ loc: ['body', field], msg: message, type: 'invalid' }],
  });
}

function signupClosed(): DomainError {
  return new DomainError(
    'SIGNUP_CLOSED',
    'Sign-up is closed: this Cairn already has an owner. Ask the operator, or sign in if you have an account.',
  );
}

function throttled(until: Date, now: Date): DomainError {
  const seconds = secondsUntil(until, now);
  return new DomainError(
    'SIGNIN_THROTTLED',
    `Too many failed sign-ins. Try again in ${Math.ceil(seconds / 60)} minute${seconds > 60 ? 's' : ''}.`,
    { retry_after_seconds: seconds },
  );
}
