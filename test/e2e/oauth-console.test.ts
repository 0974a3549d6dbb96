import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.ts';
import { startConsent } from '../support/consent.ts';
import { csrfOf, type Page, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
const clock = new FakeClock(new Date());

beforeAll(async () => {
  server = await startTestServer({ clock, env: { CAIRN_TRUST_PROXY: 'true', CAIRN_OPEN_SIGNUP: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

/** A signed-in owner (sign-up signs in). */
async function owner(): Promise<Visitor> {
  const v = new Visitor(server.url);
  expect((await v.signUp(uniqueEmail())).status).toBe(303);
  return v;
}

/**
 * A consent request as if these visitors' browser had started it at /oauth/authorize: each gets
 * the binding cookie that lets it review and decide the request.
 */
async function consent(opts: Parameters<typeof startConsent>[2] = {}, ...browsers: Visitor[]) {
  const started = await startConsent(server, clock, opts);
  for (const b of browsers) b.cookies.set('cairn_consent', started.binding);
  return started;
}

/** The JSON API as a signed-in person's script calls it: the console session cookie, JSON bodies. */
async function api(
  v: Visitor | null,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  contentType = 'application/json',
) {
  const headers: Record<string, string> = {};
  if (v?.cookies.size) headers.cookie = [...v.cookies].map(([k, val]) => `${k}=${val}`).join('; ');
  if (body !== undefined) headers['content-type'] = contentType;
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers,
    redirect: 'manual',
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    body: text ? JSON.parse(text) : null,
  };
}

/** Presses Allow or Decline on the review page. */
async function decide(v: Visitor, requestId: string, decision: 'allow' | 'decline'): Promise<Page> {
  const path = `/console/authorize/${requestId}`;
  return v.submit(path, path, { decision });
}

describe('the consent review page', () => {
  it('sends a signed-out visitor to sign in and back to the review afterwards', async () => {
    const v = new Visitor(server.url);
    const { requestId } = await consent({}, v);
    const path = `/console/authorize/${requestId}`;
    const email = uniqueEmail();
    await v.signUp(email);
    await v.signOut();

    const opened = await v.get(path);
    expect(opened.status).toBe(303);
    expect(opened.location).toBe(`/console/signin?next=${encodeURIComponent(path)}`);
    const signIn = await v.get(opened.location!);
    expect(signIn.text).toContain(`name="next" value="${path}"`);
    const signedIn = await v.signIn(email, undefined, path);
    expect(signedIn.location).toBe(path);
    expect((await v.get(path)).status).toBe(200);
  });

  it('shows the self-described name, the return host large, what Allow grants, and allows the redirect in form-action', async () => {
    const v = await owner();
    const { requestId, clientId } = await consent({ clientName: 'Editor <b>Pro</b>' }, v);
    const review = await v.get(`/console/authorize/${requestId}`);
    expect(review.status).toBe(200);
    expect(review.text).toContain('Editor &lt;b&gt;Pro&lt;/b&gt;');
    expect(review.text).not.toContain('<b>Pro</b>');
    expect(review.text).toMatch(/<small>self-described, not verified<\/small>/);
    expect(review.text).toContain(clientId);
    expect(review.text).toContain('<p class="code" id="return-host">127.0.0.1:9</p>');
    expect(review.text).toContain('<code>http://127.0.0.1:9/cb</code>');
    expect(review.text).toContain('anonymous public reading');
    expect(review.text).toContain('A new agent identity of its own');
    expect(review.text).toMatch(
      /<form class="panel" method="post" action="\/console\/authorize\/orq_[0-9A-Z]{26}">/,
    );
    expect(review.text).toMatch(/<button type="submit" name="decision" value="allow">Allow<\/button>/);
    expect(review.text).toMatch(/<button[^>]*name="decision" value="decline">Decline<\/button>/);
    expect(review.headers.get('content-security-policy')).toBe(
      "default-src 'self'; frame-ancestors 'none'; form-action 'self' http://127.0.0.1:9; base-uri 'none'",
    );
    // Only this page widens form-action.
    const list = await v.get('/console/connections');
    expect(list.headers.get('content-security-policy')).toContain("form-action 'self';");
  });

  it('names a private-use scheme as the return host and in form-action', async () => {
    const v = await owner();
    const { requestId } = await consent({ redirectUri: 'com.example.editor:/oauth/cb' }, v);
    const review = await v.get(`/console/authorize/${requestId}`);
    expect(review.text).toContain('<p class="code" id="return-host">com.example.editor://</p>');
    expect(review.headers.get('content-security-policy')).toContain(
      "form-action 'self' com.example.editor:;",
    );
  });

  it('declines: the browser goes back with access_denied and the state; nothing is connected', async () => {
    const v = await owner();
    const { requestId } = await consent({ state: 'xyz' }, v);
    const declined = await decide(v, requestId, 'decline');
    expect(declined.status).toBe(303);
    const back = new URL(declined.location!);
    expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:9/cb');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('xyz');
    expect(back.searchParams.get('code')).toBeNull();
    expect((await api(v, 'GET', '/v1/oauth/connections')).body.connections).toEqual([]);
  });

  it('allows: the browser goes back with code, state and iss; a second decision is refused', async () => {
    const v = await owner();
    const { requestId } = await consent({ state: 'xyz' }, v);
    const allowed = await decide(v, requestId, 'allow');
    expect(allowed.status).toBe(303);
    expect(allowed.headers.get('content-security-policy')).toContain(
      "form-action 'self' http://127.0.0.1:9;",
    );
    const back = new URL(allowed.location!);
    expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:9/cb');
    expect(back.searchParams.get('code')).toMatch(/.{20,}/);
    expect(back.searchParams.get('state')).toBe('xyz');
    expect(back.searchParams.get('iss')).toBe(server.url);

    const again = await decide(v, requestId, 'decline');
    expect(again.status).toBe(409);
    expect(again.text).toContain('Already decided');
    expect(again.text).toContain('already allowed');
    const reopened = await v.get(`/console/authorize/${requestId}`);
    expect(reopened.text).toContain('Already decided');
    expect(reopened.text).not.toContain('value="allow"');
  });

  it('refuses a decision without the session CSRF token, or without a decision', async () => {
    const v = await owner();
    const { requestId } = await consent({}, v);
    const path = `/console/authorize/${requestId}`;
    const forged = await v.post(path, { decision: 'allow' });
    expect(forged.status).toBe(403);
    const review = await v.get(path);
    const empty = await v.post(path, { csrf: csrfOf(review.text) });
    expect(empty.status).toBe(422);
    expect(empty.text).toContain('Press Allow or Decline.');
    expect((await api(v, 'GET', `/v1/oauth/requests/${requestId}`)).body.status).toBe('PENDING');
  });

  it('shows a malformed or unknown request id as not found', async () => {
    const v = await owner();
    expect((await v.get('/console/authorize/nope')).status).toBe(404);
    expect((await v.get('/console/authorize/orq_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
  });
});

describe('the connections page', () => {
  it('lists an allowed connection with its identity, and revokes it', async () => {
    const v = await owner();
    const { requestId, clientId } = await consent({ clientName: 'Revocable client' }, v);
    await decide(v, requestId, 'allow');

    const list = await v.get('/console/connections');
    expect(list.status).toBe(200);
    expect(list.text).toContain('<a href="/console/connections" aria-current="page">Connections</a>');
    expect(list.text).toContain('Revocable client');
    expect(list.text).toContain(clientId);
    const [connection] = (await api(v, 'GET', '/v1/oauth/connections')).body.connections;
    expect(connection).toMatchObject({ client: { client_id: clientId }, status: 'ACTIVE', scope: 'mcp' });
    expect(list.text).toContain(`href="/console/identities/${connection.agent_id}"`);
    const identity = await v.get(`/console/identities/${connection.agent_id}`);
    expect(identity.status).toBe(200);
    expect(identity.text).toContain('READ');

    const action = `/console/connections/${connection.grant_id}/revoke`;
    expect(list.text).toContain(`action="${action}"`);
    expect((await v.post(action, {})).status).toBe(403);
    const revoked = await v.post(action, { csrf: csrfOf(list.text) });
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe('/console/connections?done=revoked');
    const after = await v.get(revoked.location!);
    expect(after.text).toContain('Revoked.');
    expect(after.text).not.toContain(`action="${action}"`);
    const [now] = (await api(v, 'GET', '/v1/oauth/connections')).body.connections;
    expect(now).toMatchObject({ grant_id: connection.grant_id, status: 'REVOKED' });
    expect(now.revoked_at).toEqual(expect.any(String));
  });
});

describe('the JSON API for a signed-in person', () => {
  it('answers 401 with the error envelope without a session, never a console page', async () => {
    const { requestId } = await consent();
    for (const [method, path, body] of [
      ['GET', `/v1/oauth/requests/${requestId}`, undefined],
      ['POST', `/v1/oauth/requests/${requestId}/decision`, { action: 'allow' }],
      ['GET', '/v1/oauth/connections', undefined],
      ['POST', '/v1/oauth/connections/grt_01ARZ3NDEKTSV4RRFFQ69G5FAV/revoke', {}],
    ] as const) {
      const res = await api(null, method, path, body);
      expect(res.status).toBe(401);
      expect(res.type).toContain('application/json');
      expect(res.body).toEqual({
        status: 'ERROR',
        error: {
          code: 'UNAUTHENTICATED',
          retryable: true,
          message: expect.any(String),
          other_readers: 'WAIT_FOR_OWNER',
          details: {},
          next_action: expect.stringMatching(/\w/),
        },
      });
    }
    const stale = new Visitor(server.url);
    stale.cookies.set('cairn_session', 'not-a-session');
    expect((await api(stale, 'GET', '/v1/oauth/connections')).status).toBe(401);
  });

  it('reviews and allows a request as JSON', async () => {
    const v = await owner();
    const { requestId, clientId } = await consent({ state: 'json-state' }, v);
    const review = await api(v, 'GET', `/v1/oauth/requests/${requestId}`);
    expect(review.status).toBe(200);
    expect(review.body).toMatchObject({
      request_id: requestId,
      status: 'PENDING',
      client: { client_id: clientId, client_name: 'Test client', name_is_verified: false },
      redirect_uri: 'http://127.0.0.1:9/cb',
      return_host: '127.0.0.1:9',
      scope: 'mcp',
    });
    expect(review.body.grants.length).toBeGreaterThan(0);

    const decided = await api(v, 'POST', `/v1/oauth/requests/${requestId}/decision`, { action: 'allow' });
    expect(decided.status).toBe(200);
    expect(decided.body.status).toBe('APPROVED');
    const back = new URL(decided.body.redirect_to);
    expect(back.searchParams.get('code')).toBeTruthy();
    expect(back.searchParams.get('state')).toBe('json-state');
    expect((await api(v, 'GET', `/v1/oauth/requests/${requestId}`)).body.status).toBe('APPROVED');

    const again = await api(v, 'POST', `/v1/oauth/requests/${requestId}/decision`, { action: 'decline' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');

    const { connections } = (await api(v, 'GET', '/v1/oauth/connections')).body;
    expect(connections).toHaveLength(1);
    const revoked = await api(v, 'POST', `/v1/oauth/connections/${connections[0].grant_id}/revoke`, {});
    expect(revoked).toMatchObject({
      status: 200,
      body: { grant_id: connections[0].grant_id, status: 'REVOKED' },
    });
  });

  it('accepts only JSON bodies (415) and validates them (422)', async () => {
    const v = await owner();
    const { requestId } = await consent({}, v);
    const path = `/v1/oauth/requests/${requestId}/decision`;
    for (const type of [
      'application/x-www-form-urlencoded',
      'text/plain',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await api(v, 'POST', path, 'action=allow', type);
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    const bad = await api(v, 'POST', path, { action: 'maybe' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'action'], msg: expect.any(String) });
    const extra = await api(v, 'POST', path, { action: 'allow', scope: 'everything' });
    expect(extra.status).toBe(422);
    expect((await api(v, 'GET', `/v1/oauth/requests/${requestId}`)).body.status).toBe('PENDING');
    const unknown = await api(v, 'GET', '/v1/oauth/requests/orq_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(unknown).toMatchObject({ status: 404, body: { status: 'ERROR', error: { code: 'NOT_FOUND' } } });
    expect(unknown.type).toContain('application/json');
  });
});

describe('another browser', () => {
  it('cannot review or decide a pending request it did not start, even with its id', async () => {
    const alice = await owner();
    const mallory = await owner();
    const { requestId } = await consent({}, alice);
    expect((await mallory.get(`/console/authorize/${requestId}`)).status).toBe(404);
    expect((await api(mallory, 'GET', `/v1/oauth/requests/${requestId}`)).status).toBe(404);
    const forced = await api(mallory, 'POST', `/v1/oauth/requests/${requestId}/decision`, {
      action: 'allow',
    });
    expect(forced.status).toBe(404);
    // A forged cookie value does not help either.
    mallory.cookies.set('cairn_consent', 'forged-value');
    expect((await mallory.get(`/console/authorize/${requestId}`)).status).toBe(404);
    expect((await alice.get(`/console/authorize/${requestId}`)).status).toBe(200);
  });
});

describe('another owner', () => {
  it('cannot see, decide again or revoke a connection that is not theirs', async () => {
    const alice = await owner();
    const mallory = await owner();
    const { requestId } = await consent({}, alice);
    await decide(alice, requestId, 'allow');
    const [connection] = (await api(alice, 'GET', '/v1/oauth/connections')).body.connections;

    expect((await api(mallory, 'GET', '/v1/oauth/connections')).body.connections).toEqual([]);
    expect((await mallory.get('/console/connections')).text).not.toContain(connection.grant_id);
    const viaApi = await api(mallory, 'POST', `/v1/oauth/connections/${connection.grant_id}/revoke`, {});
    expect(viaApi.status).toBe(404);
    expect(viaApi.body.error.code).toBe('NOT_FOUND');
    const list = await mallory.get('/console/connections');
    const viaForm = await mallory.post(`/console/connections/${connection.grant_id}/revoke`, {
      csrf: csrfOf(list.text),
    });
    expect(viaForm.status).toBe(404);
    expect((await mallory.get(`/console/identities/${connection.agent_id}`)).status).toBe(404);
    // A decided request is as if it never existed for anyone but the owner who decided it.
    expect(
      (await api(mallory, 'POST', `/v1/oauth/requests/${requestId}/decision`, { action: 'decline' })).status,
    ).toBe(404);
    expect((await api(mallory, 'GET', `/v1/oauth/requests/${requestId}`)).status).toBe(404);
    expect((await mallory.get(`/console/authorize/${requestId}`)).status).toBe(404);
    expect((await api(alice, 'GET', `/v1/oauth/requests/${requestId}`)).body.status).toBe('APPROVED');
    const [still] = (await api(alice, 'GET', '/v1/oauth/connections')).body.connections;
    expect(still.status).toBe('ACTIVE');
  });
});

describe('an expired request', () => {
  it('shows that it expired and cannot be allowed', async () => {
    const v = await owner();
    const { requestId } = await consent({}, v);
    const review = await v.get(`/console/authorize/${requestId}`);
    clock.advance(11 * 60_000);
    const expired = await v.get(`/console/authorize/${requestId}`);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('This request expired');
    const late = await v.post(`/console/authorize/${requestId}`, {
      csrf: csrfOf(review.text),
      decision: 'allow',
    });
    expect(late.status).toBe(410);
    expect((await api(v, 'GET', `/v1/oauth/requests/${requestId}`)).body.status).toBe('EXPIRED');
    const viaApi = await api(v, 'POST', `/v1/oauth/requests/${requestId}/decision`, { action: 'allow' });
    expect(viaApi.status).toBe(404);
  });
});
