import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthHarness, startOAuthHarness } from '../support/oauth.ts';
import { oauthCheck } from '../support/oauth-checks.ts';

/** Token revocation (RFC 7009). */

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await (h as Awaited<ReturnType<typeof startOAuthHarness>>)?.close();
});

describe('POST /oauth/revoke', oauthCheck('oauth4webapi', 'token revocation (RFC 7009)'), () => {
  it('revokes by RFC 7009: 200 for anything, and a refresh token ends the connection', async () => {
    const as = await h.discover();
    const reg = await h.register(as);
    const { url, verifier } = await h.authorize(as, reg.body.client_id!);
    const back = await h.consent(url.href, 'allow');
    const { res, client } = await h.codeGrant(as, reg.body.client_id!, back, verifier);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
    const revoke = (token: string) =>
      fetch(as.revocation_endpoint!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: reg.body.client_id! }),
      });
    expect((await revoke('cd_ref_doesnotexist')).status).toBe(200);
    expect((await revoke(tokens.refresh_token!)).status).toBe(200);
    const mcp = await fetch(`${h.server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(mcp.status).toBe(401);
    const connections = await h.server.app.services.oauth.connections(
      (await h.server.app.services.identity.findAgent(tokens.agent_id as string))!.ownerId,
    );
    expect(connections.find((c) => c.agent_id === tokens.agent_id)?.status).toBe('REVOKED');
  });

  it("leaves another client's tokens alone, and shows a connection revoked with its identity", async () => {
    const as = await h.discover();
    const reg = await h.register(as);
    const { url, verifier } = await h.authorize(as, reg.body.client_id!);
    const back = await h.consent(url.href, 'allow');
    const { res, client } = await h.codeGrant(as, reg.body.client_id!, back, verifier);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
    const other = await h.register(as);
    const attempt = await fetch(as.revocation_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: other.body.client_id! }),
    });
    expect(attempt.status).toBe(200);
    const ownerId = (await h.server.app.services.identity.findAgent(tokens.agent_id as string))!.ownerId;
    const status = async () =>
      (await h.server.app.services.oauth.connections(ownerId)).find((c) => c.agent_id === tokens.agent_id)
        ?.status;
    expect(await status()).toBe('ACTIVE');
    await h.server.app.services.management.revoke(ownerId, tokens.agent_id as string);
    expect(await status()).toBe('REVOKED');
  });
});
