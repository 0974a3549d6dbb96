import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthHarness, startOAuthHarness } from '../support/oauth.ts';
import { oauthCheck } from '../support/oauth-checks.ts';

/** Discovery (RFC 8414, RFC 9728): metadata a strict client accepts, and 401s that point to it. */

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await (h as Awaited<ReturnType<typeof startOAuthHarness>>)?.close();
});

describe(
  'authorization server and protected resource metadata',
  oauthCheck('oauth4webapi', 'authorization server and protected resource metadata (RFC 8414, RFC 9728)'),
  () => {
    it('serves metadata that a strict client accepts, and 401s that point to it', async () => {
      const as = await h.discover();
      expect(as).toMatchObject({
        issuer: h.server.url,
        code_challenge_methods_supported: ['S256'],
        response_types_supported: ['code'],
        scopes_supported: ['mcp', 'mcp:read', 'mcp:arena'],
      });
      expect(as.grant_types_supported).toEqual(
        expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']),
      );
      const prm = await (await fetch(`${h.server.url}/.well-known/oauth-protected-resource/mcp`)).json();
      expect(prm).toEqual(
        expect.objectContaining({
          resource: `${h.server.url}/mcp`,
          authorization_servers: [h.server.url],
          scopes_supported: ['mcp', 'mcp:read', 'mcp:arena'],
          bearer_methods_supported: ['header'],
        }),
      );
      // RFC 9728 §3.3: metadata must describe the resource its address was built from; the bare
      // address would be the server root's, which is not a protected resource.
      const root = await fetch(`${h.server.url}/.well-known/oauth-protected-resource`);
      expect(root.status).toBe(404);
      // A strict client built for /mcp accepts the path-inserted document.
      const checked = await oauth.processResourceDiscoveryResponse(
        new URL(`${h.server.url}/mcp`),
        await oauth.resourceDiscoveryRequest(new URL(`${h.server.url}/mcp`), {
          [oauth.allowInsecureRequests]: true,
        }),
      );
      expect(checked.resource).toBe(`${h.server.url}/mcp`);
      const unauth = await fetch(`${h.server.url}/mcp`, { method: 'POST' });
      expect(unauth.status).toBe(401);
      expect(unauth.headers.get('www-authenticate')).toContain(
        `resource_metadata="${h.server.url}/.well-known/oauth-protected-resource/mcp"`,
      );
    });
  },
);
