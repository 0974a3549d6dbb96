import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient, uniqueEmail } from '../support/factories.ts';
import { basic, type OAuthHarness, REDIRECT, startOAuthHarness } from '../support/oauth.ts';
import { oauthCheck } from '../support/oauth-checks.ts';

/** Client authentication (RFC 6749 §2.3, §10.10) and the client_credentials grant of bootstrap tokens. */

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await (h as Awaited<ReturnType<typeof startOAuthHarness>>)?.close();
});

describe(
  'client authentication at the token and revocation endpoints',
  oauthCheck('fetch', 'client authentication at the token and revocation endpoints (RFC 6749 §2.3)'),
  () => {
    it('authenticates clients exactly: one method, Basic wherever advertised (RFC 6749 §2.3, RFC 7009)', async () => {
      const as = await h.discover();
      expect(as.token_endpoint_auth_methods_supported).toContain('client_secret_basic');

      // A bootstrap token is the client secret of client_credentials, in the body or in Basic.
      const { owner_id } = await h.server.app.services.identity.addOwner(
        uniqueEmail(),
        'correct horse battery staple',
      );
      const made = () =>
        h.server.app.services.management.createIdentity(owner_id, {
          displayName: 'Scripted agent',
          runtime: 'cron',
          bootstrapDays: 1,
        });
      const viaBasic = await h.token(
        { grant_type: 'client_credentials' },
        { authorization: basic('agent', (await made()).bootstrap_token!) },
      );
      expect(viaBasic.status).toBe(200);
      expect(viaBasic.body.access_token).toMatch(/^cd_acc_/);
      const wrong = await h.token(
        { grant_type: 'client_credentials' },
        { authorization: basic('agent', 'cd_boot_wrong') },
      );
      expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
      // Two methods in one request are refused, whatever the secrets.
      const live = (await made()).bootstrap_token!;
      const both = await h.token(
        { grant_type: 'client_credentials', client_secret: live },
        { authorization: basic('agent', live) },
      );
      expect(both).toMatchObject({ status: 400, body: { error: 'invalid_request' } });

      // Registered clients use the code and refresh grants only.
      const pub = (await h.register(as)).body.client_id!;
      expect(await h.token({ grant_type: 'client_credentials', client_id: pub })).toMatchObject({
        status: 400,
        body: { error: 'unauthorized_client' },
      });
      const conf = (await h.register(as, { token_endpoint_auth_method: 'client_secret_basic' })).body;
      const own = await h.token(
        { grant_type: 'client_credentials' },
        { authorization: basic(conf.client_id!, conf.client_secret!) },
      );
      expect(own).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
      const guessed = await h.token(
        { grant_type: 'client_credentials' },
        { authorization: basic(conf.client_id!, 'not-the-secret') },
      );
      expect(guessed).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      expect(guessed.headers.get('www-authenticate')).toMatch(/^Basic /);

      // A confidential client's connection: its tokens are revoked only by it, authenticated.
      const { url, verifier } = await h.authorize(as, conf.client_id!);
      const code = (await h.consent(url.href, 'allow')).searchParams.get('code')!;
      const issued = await h.token(
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
        { authorization: basic(conf.client_id!, conf.client_secret!) },
      );
      expect(issued.status).toBe(200);
      const asClient = { authorization: basic(conf.client_id!, conf.client_secret!) };
      const anonymous = await h.revoke({ token: issued.body.refresh_token! });
      expect(anonymous).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      const refreshed = await h.token(
        { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token! },
        asClient,
      );
      expect(refreshed.status).toBe(200);
      expect((await h.revoke({ token: refreshed.body.refresh_token! }, asClient)).status).toBe(200);
      const after = await h.token(
        { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token! },
        { authorization: basic(conf.client_id!, conf.client_secret!) },
      );
      expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    });

    it('throttles secret guessing per client id and address, and per address, with a 429 that says when to retry', async () => {
      // Addresses of this run only: throttles outlive a run on a shared PostgreSQL database, so
      // fixed addresses would start the next run already locked.
      const run = randomBytes(2).toString('hex');
      const addr = (n: number) => `2001:db8:${run}:${n}::1`; // one /64 each: addresses are throttled by /64
      const as = await h.discover();
      const conf = (await h.register(as, { token_endpoint_auth_method: 'client_secret_basic' })).body;
      const refresh = { grant_type: 'refresh_token', refresh_token: 'cd_ref_whatever' };
      // Ten wrong secrets for one client from one address: the tenth locks that client there.
      for (let i = 0; i < 9; i++) {
        const wrong = await h.token(refresh, {
          from: addr(7),
          authorization: basic(conf.client_id!, `guess-${i}`),
        });
        expect(wrong.status, `guess ${i}`).toBe(401);
      }
      const locking = await h.token(refresh, {
        from: addr(7),
        authorization: basic(conf.client_id!, 'guess-9'),
      });
      expect(locking.status).toBe(429);
      expect(locking.body.error).toBe('temporarily_unavailable');
      expect(Number(locking.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(locking.headers.get('cache-control')).toBe('no-store');
      // Locked there even with the right secret, until the lock ends.
      const there = await h.token(refresh, {
        from: addr(7),
        authorization: basic(conf.client_id!, conf.client_secret!),
      });
      expect(there.status).toBe(429);
      // A stranger cannot lock the client out (issue 40): from another address the right secret
      // authenticates (the made-up refresh token is then invalid_grant), and a wrong one is 401.
      const elsewhere = await h.token(refresh, {
        from: addr(9),
        authorization: basic(conf.client_id!, conf.client_secret!),
      });
      expect(elsewhere).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      const wrongElsewhere = await h.token(refresh, {
        from: addr(8),
        authorization: basic(conf.client_id!, 'guess-10'),
      });
      expect(wrongElsewhere.status).toBe(401);

      // Thirty wrong bootstrap secrets from one address lock that address.
      for (let i = 0; i < 29; i++) {
        const wrong = await h.token(
          {
            grant_type: 'client_credentials',
            client_secret: `cd_boot_${i}`,
          },
          { from: addr(50) },
        );
        expect(wrong.status, `bootstrap guess ${i}`).toBe(401);
      }
      const lockedOut = await h.token(
        {
          grant_type: 'client_credentials',
          client_secret: 'cd_boot_x',
        },
        { from: addr(50) },
      );
      expect(lockedOut.status).toBe(429);
      const { owner_id } = await h.server.app.services.identity.addOwner(
        uniqueEmail(),
        'correct horse battery staple',
      );
      const made = await h.server.app.services.management.createIdentity(owner_id, {
        displayName: 'Scripted agent',
        runtime: 'cron',
        bootstrapDays: 1,
      });
      const live = { grant_type: 'client_credentials', client_secret: made.bootstrap_token! };
      expect((await h.token(live, { from: addr(50) })).status).toBe(429);
      expect((await h.token(live, { from: addr(51) })).status).toBe(200);
    });
  },
);

describe('bootstrap exchange', oauthCheck('fetch', 'project-key bootstrap exchange (RFC 8693 shape)'), () => {
  it('trades a live bootstrap token for an access token only, and refuses dead ones with invalid_client', async () => {
    const ownerId = await h.newOwner();
    const created = await h.server.app.services.management.createIdentity(ownerId, {
      displayName: 'Scripted agent',
      runtime: 'cron',
      bootstrapDays: 1,
    });
    expect(created.bootstrap_token).toMatch(/^cd_boot_/);
    const bootstrapOnMcp = await fetch(`${h.server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.bootstrap_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(bootstrapOnMcp.status).toBe(401);
    // Sending it again can never work: not retryable, and the answer says where it goes.
    const { error } = await bootstrapOnMcp.json();
    expect(error).toMatchObject({ code: 'UNAUTHENTICATED', retryable: false });
    expect(error.next_action).toMatch(/\/oauth\/token/);

    const exchange = () =>
      h.post(
        '/oauth/token',
        { grant_type: 'client_credentials', client_secret: created.bootstrap_token },
        true,
      );
    const admin = await h.post(
      '/oauth/token',
      { grant_type: 'client_credentials', client_secret: created.bootstrap_token, scope: 'admin' },
      true,
    );
    expect(admin).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    const ok = await exchange();
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, agent_id: created.agent_id });
    expect(ok.body.refresh_token).toBeUndefined();
    const client = await connectClient(h.server.url, ok.body.access_token);
    expect((await callTool(client, 'identity_whoami')).body).toMatchObject({
      kind: 'OWNER_CREATED',
      mode: 'NONE',
    });
    await client.close();

    await h.server.app.services.management.revoke(ownerId, created.agent_id);
    const revoked = await exchange();
    expect(revoked).toMatchObject({ status: 401, body: { error: 'invalid_client' } });

    const other = await h.server.app.services.management.createIdentity(ownerId, {
      displayName: 'Short-lived',
      runtime: 'cron',
      bootstrapDays: 1,
    });
    h.clock.advance(86_400_000 + 1_000);
    const expired = await h.post('/oauth/token', {
      grant_type: 'client_credentials',
      client_secret: other.bootstrap_token,
    });
    expect(expired).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });
});
