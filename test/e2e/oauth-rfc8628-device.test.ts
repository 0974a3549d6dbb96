import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../support/factories.ts';
import { DEVICE_GRANT, type OAuthHarness, startOAuthHarness } from '../support/oauth.ts';
import { oauthCheck } from '../support/oauth-checks.ts';

/** Device pairing (RFC 8628): the authorization request, polling, slow_down, decisions and expiry. */

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await (h as Awaited<ReturnType<typeof startOAuthHarness>>)?.close();
});

describe(
  'POST /oauth/device_authorization',
  oauthCheck('fetch', 'device authorization request (RFC 8628 §3.1)'),
  () => {
    it('answers RFC 8628 fields with a readable user code and one sentence for the user', async () => {
      const res = await h.post('/oauth/device_authorization', {
        display_name: 'Claude at work',
        runtime: 'claude-code',
        requested_mode: 'READ',
        model: 'claude-sonnet',
        contacts: ['not-a-contact'],
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const b = res.body;
      expect(b.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
      expect(b.device_code).toMatch(/^cd_dev_[a-z2-7]{52}$/);
      expect(b).toMatchObject({ verification_uri: `${h.server.url}/pair`, interval: 5, expires_in: 900 });
      expect(b.verification_uri_complete).toBe(`${h.server.url}/pair?code=${b.user_code}`);
      expect(b.say_to_user).toContain(b.verification_uri_complete);
      const pending = await h.server.app.services.device.findForApproval(
        b.user_code.toLowerCase().replace('-', ''),
      );
      expect(pending).toMatchObject({
        display_name: 'Claude at work',
        runtime: 'claude-code',
        requested_mode: 'READ',
      });
      expect(pending?.about.model).toBe('claude-sonnet');
      expect(pending?.about.ignored?.[0]?.field).toBe('contacts');
    });

    it('refuses bad input with invalid_request, naming each problem, and stores nothing', async () => {
      const res = await h.post('/oauth/device_authorization', {
        display_name: '',
        runtime: 'x'.repeat(500),
        surprise: 1,
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      const fields = res.body.detail.map((d: { loc: string[] }) => d.loc.at(-1));
      expect(fields).toEqual(expect.arrayContaining(['display_name', 'runtime']));
    });

    it('grants only the mcp scope, at pairing and at polling', async () => {
      const wide = await h.post('/oauth/device_authorization', {
        display_name: 'Claude at work',
        runtime: 'claude-code',
        scope: 'mcp admin',
      });
      expect(wide).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
      const { device_code } = await h.startPairing({ scope: 'mcp' });
      const polled = await h.post('/oauth/token', { grant_type: DEVICE_GRANT, device_code, scope: 'admin' });
      expect(polled).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    });
  },
);

describe(
  'device grant polling',
  oauthCheck('fetch', 'device access token polling (RFC 8628 §3.4-3.5)'),
  () => {
    it('is pending, slows down fast pollers, and yields tokens once the owner approves', async () => {
      const { device_code, user_code } = await h.startPairing();
      expect((await h.poll(device_code)).body.error).toBe('authorization_pending');
      h.clock.advance(1_000);
      const tooFast = await h.poll(device_code);
      expect(tooFast).toMatchObject({ status: 400, body: { error: 'slow_down' } });
      h.clock.advance(6_000);
      // The interval is now 10 s: 6 s later is still too fast.
      expect((await h.poll(device_code)).body.error).toBe('slow_down');
      h.clock.advance(16_000);
      expect((await h.poll(device_code)).body.error).toBe('authorization_pending');

      const ownerId = await h.newOwner();
      await h.server.app.services.device.decide(ownerId, user_code, { approve: true, activateRead: false });
      h.clock.advance(16_000);
      const granted = await h.poll(device_code);
      expect(granted.status).toBe(200);
      expect(granted.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
      expect(granted.body.access_token).toMatch(/^cd_acc_/);
      expect(granted.body.refresh_token).toMatch(/^cd_ref_/);
      expect(granted.body.agent_id).toMatch(/^agt_/);
      h.clock.advance(16_000);
      expect((await h.poll(device_code)).body.error).toBe('invalid_grant');

      // Approval alone activates nothing; the identity is runtime-bound and carries its claims.
      const client = await connectClient(h.server.url, granted.body.access_token);
      const whoami = (await callTool(client, 'identity_whoami')).body;
      expect(whoami).toMatchObject({
        agent_id: granted.body.agent_id,
        kind: 'RUNTIME_BOUND',
        mode: 'NONE',
        active: false,
      });
      expect((await client.listTools()).tools).toHaveLength(2);
      await client.close();
    });

    it('activates public reading in the same step when the owner ticks it', async () => {
      const { device_code, user_code } = await h.startPairing();
      await h.server.app.services.device.decide(await h.newOwner(), user_code, {
        approve: true,
        activateRead: true,
      });
      h.clock.advance(6_000);
      const { access_token } = (await h.poll(device_code)).body;
      const client = await connectClient(h.server.url, access_token);
      expect((await callTool(client, 'identity_whoami')).body).toMatchObject({ mode: 'READ', active: true });
      await client.close();
    });

    it('answers access_denied after a decline and expired_token after 15 minutes', async () => {
      const declined = await h.startPairing();
      await h.server.app.services.device.decide(await h.newOwner(), declined.user_code, {
        approve: false,
        activateRead: false,
      });
      h.clock.advance(6_000);
      expect((await h.poll(declined.device_code)).body.error).toBe('access_denied');

      const late = await h.startPairing();
      h.clock.advance(15 * 60_000 + 1_000);
      expect((await h.poll(late.device_code)).body.error).toBe('expired_token');
      await expect(
        h.server.app.services.device.decide(await h.newOwner(), late.user_code, {
          approve: true,
          activateRead: false,
        }),
      ).rejects.toThrow(/No pending pairing/);
    });

    it('yields nothing for an approved code once it has expired', async () => {
      const { device_code, user_code } = await h.startPairing();
      await h.server.app.services.device.decide(await h.newOwner(), user_code, {
        approve: true,
        activateRead: true,
      });
      h.clock.advance(15 * 60_000 + 1_000);
      expect((await h.poll(device_code)).body.error).toBe('expired_token');
    });

    it('refuses unknown device codes and unsupported grants the OAuth way', async () => {
      expect((await h.poll('cd_dev_nothing')).body.error).toBe('invalid_grant');
      expect((await h.post('/oauth/token', { grant_type: 'password', username: 'x' })).body.error).toBe(
        'unsupported_grant_type',
      );
      expect((await h.post('/oauth/token', {})).body.error).toBe('invalid_request');
      const missing = await h.post('/oauth/token', { grant_type: 'refresh_token' }, true);
      expect(missing).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    });
  },
);

describe(
  'the device flow of a registered client',
  oauthCheck('oauth4webapi', 'device authorization grant of a registered public client (RFC 8628 §3)'),
  () => {
    const insecure = { [oauth.allowInsecureRequests]: true } as const;

    /** A public client registered for the device grant alone: no redirect URIs (RFC 8628 §3). */
    async function deviceClient(as: oauth.AuthorizationServer, name: string): Promise<oauth.Client> {
      const res = await fetch(as.registration_endpoint!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: name,
          grant_types: [DEVICE_GRANT, 'refresh_token'],
          token_endpoint_auth_method: 'none',
        }),
      });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(201);
      expect(body).toMatchObject({ grant_types: [DEVICE_GRANT, 'refresh_token'], response_types: [] });
      return { client_id: body.client_id, token_endpoint_auth_method: 'none' };
    }

    it('pairs with oauth4webapi: client_id binds the code, and the tokens are that client’s', async () => {
      const as = await h.discover();
      const client = await deviceClient(as, 'Moorland CLI');
      const started = await oauth.processDeviceAuthorizationResponse(
        as,
        client,
        await oauth.deviceAuthorizationRequest(as, client, oauth.None(), { scope: 'mcp' }, insecure),
      );
      // Named by its registration: no display_name or runtime needed.
      const pending = await h.server.app.services.device.findForApproval(started.user_code);
      expect(pending).toMatchObject({ display_name: 'Moorland CLI', runtime: 'oauth:Moorland CLI' });
      const poll = (c: oauth.Client) =>
        oauth.deviceCodeGrantRequest(as, c, oauth.None(), started.device_code, insecure);
      await expect(oauth.processDeviceCodeResponse(as, client, await poll(client))).rejects.toMatchObject({
        error: 'authorization_pending',
      });

      await h.server.app.services.device.decide(await h.newOwner(), started.user_code, {
        approve: true,
        activateRead: true,
      });
      h.clock.advance(6_000);
      // Another client, or none, gets nothing for it.
      const other = await deviceClient(as, 'Someone else');
      expect(await (await poll(other)).json()).toMatchObject({ error: 'invalid_grant' });
      expect((await h.poll(started.device_code)).body.error).toBe('invalid_request');

      const tokens = await oauth.processDeviceCodeResponse(as, client, await poll(client));
      expect((await h.mcpStatus(tokens.access_token)).status).toBe(200);
      // The pairing is an OAuth connection of this client: it refreshes as the client, and only so.
      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
      );
      expect(refreshed.access_token).toEqual(expect.any(String));
      const bare = await h.token({ grant_type: 'refresh_token', refresh_token: refreshed.refresh_token! });
      expect(bare).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    });

    it('refuses a client that did not register the device grant, and an unknown one', async () => {
      const as = await h.discover();
      const codeOnly = (await h.register(as)).body.client_id!;
      const asked = await h.post('/oauth/device_authorization', { client_id: codeOnly }, true);
      expect(asked).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
      const unknown = await h.post('/oauth/device_authorization', { client_id: 'cli_nobody' }, true);
      expect(unknown).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      const nameless = await h.post('/oauth/device_authorization', {}, true);
      expect(nameless).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    });
  },
);
