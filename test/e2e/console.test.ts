import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../src/domains/catalog.ts';
import { FakeClock } from '../../src/kernel/clock.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { csrfOf, errorOf, freshAddress, Visitor } from '../support/console-visitor.ts';
import { openTestDatabase } from '../support/database.ts';
import { uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
const clock = new FakeClock(new Date());
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  // Sign-up is open here so each test can make its own owners; the first-owner rule is tested on an empty database below.
  server = await startTestServer({ clock, env: { CAIRN_TRUST_PROXY: 'true', CAIRN_OPEN_SIGNUP: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

const visitor = () => new Visitor(server.url, freshAddress());

/** A signed-up, signed-in owner. */
async function owner() {
  const v = visitor();
  const email = uniqueEmail();
  const res = await v.signUp(email, PASSWORD);
  expect(res.status).toBe(303);
  return { v, email };
}

/**
 * A database with no owners at all: a fresh PGlite copy, or a new PostgreSQL database next to the
 * shared test database (which other test files fill with owners).
 */
async function emptyDatabase() {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const database = await openTestDatabase();
    return { database, drop: () => database.close() };
  }
  const name = `cairn_signup_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const fresh = new URL(url);
  fresh.pathname = `/${name}`;
  const database = await openDatabase({
    tables: TABLES,
    databaseUrl: fresh.toString(),
    migrate: true,
    poolSize: 4,
  });
  return {
    database,
    drop: async () => {
      await database.close();
      await admin.query(`drop database ${name} with (force)`);
      await admin.end();
    },
  };
}

describe('sign-up', () => {
  it('is open only for the first owner, unless CAIRN_OPEN_SIGNUP=true', async () => {
    const { database, drop } = await emptyDatabase();
    const closed = await startTestServer({ database, env: { CAIRN_TRUST_PROXY: 'true' } });
    try {
      const first = new Visitor(closed.url, freshAddress());
      const page = await first.get('/console/signup');
      expect(page.status).toBe(200);
      expect(page.text).toContain('No owner exists yet');
      const created = await first.signUp('First@Example.org', PASSWORD);
      expect(created.status).toBe(303);
      expect(created.location).toBe('/console?done=welcome');
      expect((await first.get('/console')).text).toContain('first@example.org');

      const second = new Visitor(closed.url, freshAddress());
      const refused = await second.get('/console/signup');
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('Sign-up is closed');
      // Posting anyway (with a valid signed-out token from the sign-in page) is refused too.
      const signin = await second.get('/console/signin');
      expect(signin.text).not.toContain('/console/signup');
      const post = await second.post('/console/signup', {
        csrf: csrfOf(signin.text),
        email: 'second@example.org',
        password: PASSWORD,
        password_repeat: PASSWORD,
      });
      expect(post.status).toBe(403);
      expect(post.text).toContain('Sign-up is closed');
      expect((await second.signIn('second@example.org')).status).toBe(403);

      const open = await startTestServer({ database, env: { CAIRN_OPEN_SIGNUP: 'true' } });
      try {
        const third = new Visitor(open.url, freshAddress());
        expect((await third.signUp('third@example.org')).status).toBe(303);
        // The same email again, in another case, is a conflict, not a second account.
        const again = await new Visitor(open.url, freshAddress()).signUp('THIRD@example.org');
        expect(again.status).toBe(409);
        expect(errorOf(again.text)).toMatch(/already exists/);
      } finally {
        await open.close();
      }
    } finally {
      await closed.close();
      await drop();
    }
  });

  it('refuses bad input with the form again and creates nothing', async () => {
    const v = visitor();
    const email = uniqueEmail();
    const short = await v.submit('/console/signup', '/console/signup', {
      email,
      password: 'short',
      password_repeat: 'short',
    });
    expect(short.status).toBe(422);
    expect(errorOf(short.text)).toMatch(/10-1024 characters/);
    const differ = await v.submit('/console/signup', '/console/signup', {
      email,
      password: PASSWORD,
      password_repeat: `${PASSWORD}!`,
    });
    expect(differ.status).toBe(422);
    expect(errorOf(differ.text)).toMatch(/differ/);
    const bad = await v.submit('/console/signup', '/console/signup', {
      email: 'not an email',
      password: PASSWORD,
      password_repeat: PASSWORD,
    });
    expect(bad.status).toBe(422);
    expect((await v.signIn(email)).status).toBe(403);
  });
});

describe('sign-in and sessions', () => {
  it('signs in and out with HttpOnly, SameSite=Lax cookies and a strict CSP', async () => {
    const { email } = await owner();
    const v = visitor();
    const form = await v.get('/console/signin');
    const csp = form.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(form.headers.get('cache-control')).toBe('no-store');
    expect(form.text).toMatch(/<label for="email">Email<\/label>/);
    expect(form.text).toMatch(/<label for="password">Password<\/label>/);
    expect(form.text).toMatch(/<button type="submit">Sign in<\/button>/);
    expect(form.text).not.toMatch(/<script|style="/);
    const pre = form.headers.getSetCookie().find((c) => c.startsWith('cairn_pre='));
    expect(pre).toMatch(/; HttpOnly/);
    expect(pre).toMatch(/; SameSite=Lax/);

    const res = await v.post('/console/signin', {
      csrf: csrfOf(form.text),
      email: email.toUpperCase(),
      password: PASSWORD,
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/console');
    const session = res.headers.getSetCookie().find((c) => c.startsWith('cairn_session='));
    expect(session).toMatch(/; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(session).not.toMatch(/Secure/);
    const home = await v.get('/console');
    expect(home.status).toBe(200);
    expect(home.text).toContain(email);
    expect(home.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await v.get('/console/style.css')).headers.get('content-type')).toMatch(/text\/css/);

    const stolen = v.cookies.get('cairn_session')!;
    const out = await v.signOut();
    expect(out.status).toBe(303);
    expect(out.location).toBe('/console/signin?done=signed_out');
    expect(v.cookies.has('cairn_session')).toBe(false);
    expect((await v.get('/console')).location).toBe('/console/signin?next=%2Fconsole');
    // The old cookie value is dead on the server too, not just forgotten by the browser.
    v.cookies.set('cairn_session', stolen);
    expect((await v.get('/console')).status).toBe(303);
  });

  it('refuses a wrong password exactly like an unknown email', async () => {
    const { email } = await owner();
    const wrongPassword = await visitor().signIn(email, 'not the password at all');
    const unknownEmail = await visitor().signIn(uniqueEmail(), PASSWORD);
    expect(wrongPassword.status).toBe(403);
    expect(unknownEmail.status).toBe(403);
    expect(errorOf(wrongPassword.text)).toBe('That email and password do not match an account.');
    expect(errorOf(unknownEmail.text)).toBe(errorOf(wrongPassword.text));
    expect(wrongPassword.headers.getSetCookie().some((c) => c.startsWith('cairn_session='))).toBe(false);
  });

  it('locks an account after 5 failures from any addresses, and lifts the lock after 15 minutes', async () => {
    const { email } = await owner();
    for (let i = 1; i <= 5; i++) {
      const res = await visitor().signIn(email, `wrong password ${i}`);
      expect(res.status).toBe(i < 5 ? 403 : 429);
    }
    const locked = await visitor().signIn(email, PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(errorOf(locked.text)).toMatch(/Too many failed sign-ins. Try again in 15 minutes/);
    // Other accounts are not affected.
    const other = await owner();
    await other.v.signOut();
    expect((await other.v.signIn(other.email)).status).toBe(303);

    clock.advance(15 * 60_000 + 1_000);
    expect((await visitor().signIn(email, PASSWORD)).status).toBe(303);
  });

  it('locks an address after 20 failures, whichever accounts it tries', async () => {
    const { email } = await owner();
    const attacker = visitor();
    for (let i = 1; i <= 20; i++) {
      const res = await attacker.signIn(uniqueEmail(), PASSWORD);
      expect(res.status).toBe(i < 20 ? 403 : 429);
    }
    const refused = await attacker.signIn(email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(errorOf(refused.text)).toMatch(/Too many failed sign-ins/);
    expect((await visitor().signIn(email, PASSWORD)).status).toBe(303);
    clock.advance(15 * 60_000 + 1_000);
  });

  it('a success resets the account count', async () => {
    const { email } = await owner();
    for (let i = 0; i < 4; i++) expect((await visitor().signIn(email, 'wrong password!')).status).toBe(403);
    expect((await visitor().signIn(email, PASSWORD)).status).toBe(303);
    for (let i = 0; i < 4; i++) expect((await visitor().signIn(email, 'wrong password!')).status).toBe(403);
    expect((await visitor().signIn(email, PASSWORD)).status).toBe(303);
  });

  it('refuses sign-in posts without a valid pre-session token, and starts no session', async () => {
    const { email } = await owner();
    const v = visitor();
    const noCookie = await v.post('/console/signin', { csrf: 'x', email, password: PASSWORD });
    expect(noCookie.status).toBe(403);
    expect(errorOf(noCookie.text)).toMatch(/did not come from this site/);
    const form = await v.get('/console/signin');
    const wrong = await v.post('/console/signin', {
      csrf: `${csrfOf(form.text)}x`,
      email,
      password: PASSWORD,
    });
    expect(wrong.status).toBe(403);
    expect(v.cookies.has('cairn_session')).toBe(false);
    // A token from another browser's pre-session is worthless with this one's cookie.
    const foreign = csrfOf((await visitor().get('/console/signin')).text);
    expect((await v.post('/console/signin', { csrf: foreign, email, password: PASSWORD })).status).toBe(403);
    // An hour later the pre-session has expired.
    const page = await v.get('/console/signin');
    clock.advance(61 * 60_000);
    expect(
      (await v.post('/console/signin', { csrf: csrfOf(page.text), email, password: PASSWORD })).status,
    ).toBe(403);
  });

  it('ends a session after 12 idle hours', async () => {
    const { v } = await owner();
    clock.advance(11 * 3_600_000);
    expect((await v.get('/console')).status).toBe(200);
    clock.advance(11 * 3_600_000);
    expect((await v.get('/console')).status).toBe(200);
    clock.advance(12 * 3_600_000 + 1_000);
    expect((await v.get('/console')).status).toBe(303);
  });

  it('returns only to same-origin console paths after sign-in', async () => {
    const { email } = await owner();
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example', '/elsewhere']) {
      expect((await visitor().signIn(email, PASSWORD, next)).location).toBe('/console');
    }
    expect((await visitor().signIn(email, PASSWORD, '/pair?code=BCDF-GHJK')).location).toBe(
      '/pair?code=BCDF-GHJK',
    );
  });
});
