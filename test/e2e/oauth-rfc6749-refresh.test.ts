import { eq } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTokens } from '../../src/domains/identity/credentials/tables.ts';
import { callTool, connectClient } from '../support/factories.ts';
import { type OAuthHarness, startOAuthHarness } from '../support/oauth.ts';
import { oauthCheck } from '../support/oauth-checks.ts';

/** Refreshing (RFC 6749 §6): rotation, the duplicate window, replay revocation, the 7-day cap, scope. */

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await (h as Awaited<ReturnType<typeof startOAuthHarness>>)?.close();
});

describe(
  'refresh within an OAuth connection',
  oauthCheck('oauth4webapi', 'refresh token grant (RFC 6749 §6)'),
  () => {
    it('keeps refresh inside the 7 days and revokes the connection on a replayed refresh token', async () => {
      const as = await h.discover();
      const reg = await h.register(as);
      const { url, verifier } = await h.authorize(as, reg.body.client_id!);
      const back = await h.consent(url.href, 'allow');
      const { res, client } = await h.codeGrant(as, reg.body.client_id!, back, verifier);
      const first = await oauth.processAuthorizationCodeResponse(as, client, res);
      const refresh = (token: string) =>
        oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, {
          [oauth.allowInsecureRequests]: true,
        });

      h.clock.advance(7 * 86_400_000 - 30 * 60_000); // 30 minutes before the connection ends
      const second = await oauth.processRefreshTokenResponse(as, client, await refresh(first.refresh_token!));
      // Capped at the end of the connection, not the usual 60 minutes.
      expect(second.expires_in).toBe(1800);
      // Another client cannot use it.
      const other = await h.register(as);
      const stolen = await fetch(as.token_endpoint!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: second.refresh_token!,
          client_id: other.body.client_id!,
        }),
      });
      expect(await stolen.json()).toMatchObject({ error: 'invalid_grant' });
      h.clock.advance(31 * 60_000); // past the 7 days: the token is dead and a new login is needed
      const late = await fetch(`${h.server.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${second.access_token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(late.status).toBe(401);
      const ended = await refresh(second.refresh_token!);
      expect(ended.status).toBe(400);
      expect(await ended.json()).toMatchObject({ error: 'invalid_grant' });
      h.clock.advance(-(7 * 86_400_000 + 60_000)); // back in time for the tests that follow

      // A refresh token used twice outside the retry window revokes the connection.
      const again = await h.register(as);
      const a = await h.authorize(as, again.body.client_id!);
      const b = await h.consent(a.url.href, 'allow');
      const g = await h.codeGrant(as, again.body.client_id!, b, a.verifier);
      const t1 = await oauth.processAuthorizationCodeResponse(as, g.client, g.res);
      const r1 = await oauth.refreshTokenGrantRequest(as, g.client, oauth.None(), t1.refresh_token!, {
        [oauth.allowInsecureRequests]: true,
      });
      const t2 = await oauth.processRefreshTokenResponse(as, g.client, r1);
      h.clock.advance(3_000);
      const replay = await oauth.refreshTokenGrantRequest(as, g.client, oauth.None(), t1.refresh_token!, {
        [oauth.allowInsecureRequests]: true,
      });
      expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
      const afterReplay = await oauth.refreshTokenGrantRequest(
        as,
        g.client,
        oauth.None(),
        t2.refresh_token!,
        {
          [oauth.allowInsecureRequests]: true,
        },
      );
      expect(await afterReplay.json()).toMatchObject({ error: 'invalid_grant' });
    });
  },
);

describe(
  'refresh rotation',
  oauthCheck('fetch', 'refresh token rotation and replay detection (RFC 9700 §4.14)'),
  () => {
    async function pairedTokens() {
      const { device_code, user_code } = await h.startPairing();
      await h.server.app.services.device.decide(await h.newOwner(), user_code, {
        approve: true,
        activateRead: true,
      });
      h.clock.advance(6_000);
      return (await h.poll(device_code)).body;
    }
    const refresh = (token: string) =>
      h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: token }, true);

    it('spends the old token and returns a new pair for the same identity', async () => {
      const first = await pairedTokens();
      const rotated = await refresh(first.refresh_token);
      expect(rotated.status).toBe(200);
      expect(rotated.body.agent_id).toBe(first.agent_id);
      expect(rotated.body.refresh_token).not.toBe(first.refresh_token);
      expect(rotated.body.access_token).not.toBe(first.access_token);
      const client = await connectClient(h.server.url, rotated.body.access_token);
      expect((await callTool(client, 'identity_whoami')).body.agent_id).toBe(first.agent_id);
      await client.close();
    });

    it('refuses a scope beyond mcp without spending the refresh token', async () => {
      const first = await pairedTokens();
      for (const scope of ['admin', 'mcp admin']) {
        const wider = await h.post(
          '/oauth/token',
          { grant_type: 'refresh_token', refresh_token: first.refresh_token, scope },
          true,
        );
        expect(wider, scope).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
      }
      // Not spent: the same token still rotates, and asking for exactly mcp is fine.
      const rotated = await h.post(
        '/oauth/token',
        { grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'mcp' },
        true,
      );
      expect(rotated.status).toBe(200);
      expect(rotated.body.agent_id).toBe(first.agent_id);
    });

    it('gives the same new pair to a duplicate within 2 seconds, and treats later reuse as replay', async () => {
      const first = await pairedTokens();
      const rotated = (await refresh(first.refresh_token)).body;
      h.clock.advance(1_500);
      expect((await refresh(first.refresh_token)).body).toEqual(rotated);
      h.clock.advance(1_000);
      const replay = await refresh(first.refresh_token);
      expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect(replay.body.error_description).toMatch(/revoked/);
      // Every token of that pairing is now dead.
      expect((await refresh(rotated.refresh_token)).body.error).toBe('invalid_grant');
      const mcp = await fetch(`${h.server.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${rotated.access_token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(mcp.status).toBe(401);
    });

    it('keeps the sealed duplicate answer no longer than its window', async () => {
      const first = await pairedTokens();
      await refresh(first.refresh_token);
      const sealedOf = async (agentId: string) =>
        (
          await h.server.database.db
            .select({ s: agentTokens.retrySealed })
            .from(agentTokens)
            .where(eq(agentTokens.agentId, agentId))
        ).filter((r) => r.s).length;
      expect(await sealedOf(first.agent_id)).toBe(1);
      h.clock.advance(2_500);
      // Any later refresh, of any pairing, sweeps answers whose window has passed.
      const other = await pairedTokens();
      await refresh(other.refresh_token);
      expect(await sealedOf(first.agent_id)).toBe(0);
      expect(await sealedOf(other.agent_id)).toBe(1);
    });

    it('expires access tokens after 60 minutes and refresh tokens after 7 days', async () => {
      const tokens = await pairedTokens();
      h.clock.advance(61 * 60_000);
      const res = await fetch(`${h.server.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
      const renewed = await refresh(tokens.refresh_token);
      expect(renewed.status).toBe(200);
      h.clock.advance(7 * 86_400_000 + 1_000);
      expect((await refresh(renewed.body.refresh_token)).body.error).toBe('invalid_grant');
    });
  },
);
