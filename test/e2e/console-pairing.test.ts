import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.ts';
import { csrfOf, errorOf, Visitor } from '../support/console-visitor.ts';
import { callTool, connectClient, uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
const clock = new FakeClock(new Date());
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

beforeAll(async () => {
  server = await startTestServer({ clock, env: { CAIRN_TRUST_PROXY: 'true', CAIRN_OPEN_SIGNUP: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

/** What an agent runtime sends to start pairing. */
async function startPairing(body: Record<string, unknown>) {
  const res = await fetch(`${server.url}/oauth/device_authorization`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    device_code: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete: string;
    say_to_user: string;
    interval: number;
  };
}

async function pollOnce(deviceCode: string) {
  const res = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: deviceCode }).toString(),
  });
  return { status: res.status, body: await res.json() };
}

/**
 * The runtime's polling loop, running while the owner acts: it waits `interval` seconds (on the
 * fake clock) before each poll, slows down when told, and stops at the first final answer.
 */
async function pollUntilDecided(deviceCode: string, interval: number) {
  let pending = 0;
  for (;;) {
    clock.advance(interval * 1000);
    const answer = await pollOnce(deviceCode);
    if (answer.body.error === 'authorization_pending') pending++;
    else if (answer.body.error === 'slow_down') interval += 5;
    else return { ...answer, pending };
    await sleep(20);
  }
}

const owner = async () => {
  const v = new Visitor(server.url);
  const email = uniqueEmail();
  expect((await v.signUp(email)).status).toBe(303);
  await v.signOut();
  return { v, email };
};

describe('device pairing through the console', () => {
  it('runtime polls while the owner signs in, reviews the claims and approves with public reading', async () => {
    const { v, email } = await owner();
    const grant = await startPairing({
      display_name: 'Field researcher',
      runtime: 'claude-code',
      requested_mode: 'READ',
      model: 'claude-sonnet-4',
      software: 'Claude Code 2.1',
      purpose: 'Literature review for the lab',
      contacts: ['ops@example.org', 'not a contact'],
      organization: 'Example Lab',
    });
    expect(grant.verification_uri).toBe(`${server.url}/pair`);
    expect(grant.say_to_user).toContain(grant.verification_uri_complete);

    // RFC 8628: polling faster than the interval is told to slow down.
    clock.advance(grant.interval * 1000);
    expect((await pollOnce(grant.device_code)).body.error).toBe('authorization_pending');
    expect((await pollOnce(grant.device_code)).body.error).toBe('slow_down');
    const polling = pollUntilDecided(grant.device_code, grant.interval + 5);

    // The owner opens the link, is sent to sign in, and comes back to the request.
    const path = grant.verification_uri_complete.slice(server.url.length);
    const opened = await v.get(path);
    expect(opened.status).toBe(303);
    expect(opened.location).toBe(`/console/signin?next=${encodeURIComponent(path)}`);
    const signIn = await v.get(opened.location!);
    expect(signIn.text).toContain(`name="next" value="${path}"`);
    const signedIn = await v.post('/console/signin', {
      csrf: csrfOf(signIn.text),
      email,
      password: 'correct horse battery staple',
      next: path,
    });
    expect(signedIn.location).toBe(path);

    const review = await v.get(path);
    expect(review.status).toBe(200);
    expect(review.text).toContain(grant.user_code);
    expect(review.text).toContain('Field researcher');
    expect(review.text).toContain('claude-code');
    expect(review.text).toContain('READ');
    expect(review.text).toMatch(/<h2[^>]*>[^<]*<small>\(claimed, not verified\)<\/small><\/h2>/);
    for (const claim of [
      'claude-sonnet-4',
      'Claude Code 2.1',
      'Literature review for the lab',
      'Example Lab',
    ]) {
      expect(review.text).toContain(claim);
    }
    expect(review.text).toContain('Ignored values');
    expect(review.text).toContain('&quot;not a contact&quot; is neither an email address nor an https URL');
    expect(review.text).toMatch(
      /<input type="checkbox"[^>]*name="activate_read"[^>]*> Activate public reading<\/label>/,
    );
    expect(review.text).toMatch(/<button type="submit" name="decision" value="approve">Approve<\/button>/);
    expect(review.text).toMatch(/<button[^>]*name="decision" value="decline">Decline<\/button>/);

    const decided = await v.post('/pair', {
      csrf: csrfOf(review.text),
      code: grant.user_code,
      decision: 'approve',
      activate_read: 'on',
    });
    expect(decided.status).toBe(200);
    expect(decided.text).toContain('Approved: Field researcher can now finish connecting');

    const tokens = await polling;
    expect(tokens.pending).toBeGreaterThanOrEqual(1);
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(tokens.body.access_token).toMatch(/^cd_acc_/);
    expect(tokens.body.refresh_token).toMatch(/^cd_ref_/);
    expect(tokens.body.agent_id).toMatch(/^agt_/);

    const client = await connectClient(server.url, tokens.body.access_token);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('identity_update_about');
    const whoami = await callTool(client, 'identity_whoami');
    expect(whoami.body).toMatchObject({
      agent_id: tokens.body.agent_id,
      kind: 'RUNTIME_BOUND',
      mode: 'READ',
      active: true,
      about_you: { model: 'claude-sonnet-4', organization: 'Example Lab' },
    });
    await client.close();

    expect((await v.get('/console')).text).toContain(tokens.body.agent_id);
    expect((await v.get('/console/audit')).text).toContain('agent.approve');
    // The code is spent: opening the link again says so.
    const again = await v.get(path);
    expect(again.status).toBe(404);
    expect(errorOf(again.text)).toContain('No pending pairing request has the code');
  });

  it('approval without the checkbox leaves the identity inert; Decline denies the runtime', async () => {
    const { v, email } = await owner();
    await v.signIn(email);
    const inert = await startPairing({ display_name: 'Quiet one', runtime: 'cursor' });
    const page = await v.get(`/pair?code=${inert.user_code.toLowerCase().replace('-', '')}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('none requested');
    await v.post('/pair', { csrf: csrfOf(page.text), code: inert.user_code, decision: 'approve' });
    const answer = await pollUntilDecided(inert.device_code, inert.interval);
    const client = await connectClient(server.url, answer.body.access_token);
    expect((await callTool(client, 'identity_whoami')).body).toMatchObject({ mode: 'NONE', active: false });
    await client.close();

    const declined = await startPairing({ display_name: 'Unwanted', runtime: 'unknown' });
    const review = await v.get(`/pair?code=${declined.user_code}`);
    const res = await v.post('/pair', {
      csrf: csrfOf(review.text),
      code: declined.user_code,
      decision: 'decline',
    });
    expect(res.text).toContain('<h1>Declined</h1>');
    const denied = await pollUntilDecided(declined.device_code, declined.interval);
    expect(denied.body.error).toBe('access_denied');
    expect((await v.get('/console/audit')).text).toContain('agent.decline');
  });

  it('refuses a forged decision (403), escapes what the runtime sent, and explains unknown codes', async () => {
    const { v, email } = await owner();
    await v.signIn(email);
    const grant = await startPairing({
      display_name: '<img src=x onerror=alert(1)>',
      runtime: '"><script>x</script>',
    });
    const review = await v.get(`/pair?code=${grant.user_code}`);
    expect(review.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(review.text).not.toContain('<img');
    expect(review.text).not.toContain('<script>');

    const forged = await v.post('/pair', { code: grant.user_code, decision: 'approve', activate_read: 'on' });
    expect(forged.status).toBe(403);
    expect((await v.get(`/pair?code=${grant.user_code}`)).status).toBe(200);
    clock.advance(grant.interval * 1000);
    expect((await pollOnce(grant.device_code)).body.error).toBe('authorization_pending');

    const unknown = await v.get('/pair?code=BBBB-BBBB');
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown.text)).toMatch(/may have expired/);
    expect((await v.get('/pair')).text).toContain('Pairing code');
  });

  it('throttles an owner who looks up many codes that match nothing', async () => {
    const v = new Visitor(server.url);
    expect((await v.signUp(uniqueEmail())).status).toBe(303);
    const real = await startPairing({ display_name: 'Real agent', runtime: 'cursor' });
    for (let i = 0; i < 9; i++) {
      const miss = await v.get(`/pair?code=BBBB-BBB${'BCDFGHJKLM'[i]}`);
      expect(miss.status, `miss ${i}`).toBe(404);
    }
    // The tenth miss sets the lock.
    expect((await v.get('/pair?code=BBBB-BBBM')).status).toBe(429);
    // Locked now, even for a code that exists: guessing is what the lock is for.
    const locked = await v.get(`/pair?code=${real.user_code}`);
    expect(locked.status).toBe(429);
    expect(locked.text).toMatch(/Too many pairing codes/);
    // The lock page says when it ends, for scripts as well as people (15 minutes at most).
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    clock.advance(16 * 60_000);
    const fresh = await startPairing({ display_name: 'Later agent', runtime: 'cursor' });
    expect((await v.get(`/pair?code=${fresh.user_code}`)).status).toBe(200);
  });
});
