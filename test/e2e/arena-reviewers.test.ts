import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, errorOf, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { ownerApi } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 22 item 1: the operator names Arena reviewers in the console and the owner API (beside
 * the CLI). Only an operator may (403 OPERATOR_REQUIRED otherwise); a named account then sees
 * the cases queue; the change is audited on the named account; an unknown email is NOT_FOUND.
 */

const PASSWORD = 'correct horse battery staple';
const OPERATOR = uniqueEmail();
const PAGE = '/console/arena/reviewers';
let server: TestServer;

beforeAll(async () => {
  // The operator is named, so which owner signed up first (a shared PostgreSQL database) does not matter.
  server = await startTestServer({ env: { CAIRN_OPERATOR_EMAILS: OPERATOR } });
  await server.app.services.identity.addOwner(OPERATOR, PASSWORD);
});
afterAll(async () => {
  await server?.close();
});

async function signedIn(email: string): Promise<Visitor> {
  const visitor = new Visitor(server.url);
  expect((await visitor.signIn(email, PASSWORD)).status).toBe(303);
  return visitor;
}

async function newOwner(): Promise<{ email: string; token: string }> {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, PASSWORD);
  const { token } = await server.app.services.identity.addOwnerToken(email, 'tests', 1);
  return { email, token };
}

describe('Arena reviewers, named by the operator', () => {
  it('the operator names and unnames a reviewer in the console; the account then sees the cases', async () => {
    const candidate = await newOwner();
    const cases = await ownerApi(server, candidate.token, 'GET', '/v1/arena/cases');
    expect(cases.status).toBe(403);
    expect(cases.body.error.code).toBe('ARENA_NOT_REVIEWER');

    const operator = await signedIn(OPERATOR);
    const page = await operator.get(PAGE);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(candidate.email);
    const named = await operator.post(PAGE, {
      csrf: csrfOf(page.text),
      email: candidate.email,
      enabled: 'true',
    });
    expect(named.status).toBe(303);
    const after = await operator.get(named.headers.get('location') ?? PAGE);
    expect(after.text).toContain('the account is a reviewer now');
    expect(after.text).toContain(candidate.email);
    expect((await ownerApi(server, candidate.token, 'GET', '/v1/arena/cases')).status).toBe(200);

    // Audited on the named account's own log.
    const audit = await (await signedIn(candidate.email)).get('/console/audit');
    expect(audit.text).toContain('owner.arena_reviewer');

    const unnamed = await operator.post(PAGE, {
      csrf: csrfOf(after.text),
      email: candidate.email,
      enabled: 'false',
    });
    expect(unnamed.status).toBe(303);
    expect((await ownerApi(server, candidate.token, 'GET', '/v1/arena/cases')).status).toBe(403);

    // A form without the CSRF token changes nothing.
    const forged = await operator.post(PAGE, { csrf: 'forged', email: candidate.email, enabled: 'true' });
    expect(forged.status).toBe(403);
    expect((await ownerApi(server, candidate.token, 'GET', '/v1/arena/cases')).status).toBe(403);

    // An unknown account is named back on the page, with what was typed.
    const fresh = await operator.get(PAGE);
    const unknown = await operator.post(PAGE, {
      csrf: csrfOf(fresh.text),
      email: 'nobody-here@example.org',
      enabled: 'true',
    });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown.text)).toContain('No owner with email');
    expect(unknown.text).toContain('nobody-here@example.org');
  });

  it('an owner who does not operate this Cairn can neither see nor change reviewers', async () => {
    const plain = await newOwner();
    const target = await newOwner();
    const visitor = await signedIn(plain.email);
    const page = await visitor.get(PAGE);
    expect(page.status).toBe(403);
    expect(page.text).toContain('Only the operator of this Cairn names Arena reviewers');
    expect(page.text).not.toContain('name="enabled"');
    const posted = await visitor.post(PAGE, {
      csrf: csrfOf(page.text),
      email: target.email,
      enabled: 'true',
    });
    expect(posted.status).toBe(403);

    const listed = await ownerApi(server, plain.token, 'GET', '/v1/arena/reviewers');
    expect(listed.status).toBe(403);
    expect(listed.body.error.code).toBe('OPERATOR_REQUIRED');
    const set = await ownerApi(server, plain.token, 'POST', '/v1/arena/reviewers', {
      email: plain.email,
      enabled: true,
    });
    expect(set.status).toBe(403);
    expect((await ownerApi(server, plain.token, 'GET', '/v1/arena/cases')).status).toBe(403);
  });

  it('the owner API names a reviewer for the operator, and lists the reviewers', async () => {
    const { token } = await server.app.services.identity.addOwnerToken(OPERATOR, 'tests', 1);
    const candidate = await newOwner();
    const set = await ownerApi(server, token, 'POST', '/v1/arena/reviewers', {
      email: candidate.email.toUpperCase(),
      enabled: true,
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ email: candidate.email, arena_reviewer: true, changed: true });
    const again = await ownerApi(server, token, 'POST', '/v1/arena/reviewers', {
      email: candidate.email,
      enabled: true,
    });
    expect(again.body.changed).toBe(false);
    const listed = await ownerApi(server, token, 'GET', '/v1/arena/reviewers');
    expect(listed.status).toBe(200);
    expect(listed.body.reviewers.map((r: { email: string }) => r.email)).toContain(candidate.email);
    const bad = await ownerApi(server, token, 'POST', '/v1/arena/reviewers', {
      email: 'not-an-email',
      enabled: true,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    const missing = await ownerApi(server, token, 'POST', '/v1/arena/reviewers', {
      email: 'nobody-here@example.org',
      enabled: true,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });
});
