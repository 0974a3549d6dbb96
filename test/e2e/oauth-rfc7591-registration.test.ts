import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthHarness, startOAuthHarness } from '../support/oauth.ts';
import { oauthCheck } from '../support/oauth-checks.ts';

/** Dynamic client registration (RFC 7591, RFC 9700 §2.1). */

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await (h as Awaited<ReturnType<typeof startOAuthHarness>>)?.close();
});

describe('POST /oauth/register', oauthCheck('fetch', 'dynamic client registration (RFC 7591)'), () => {
  it('refuses registrations that can never be valid, and unreadable bodies the OAuth way', async () => {
    const as = await h.discover();
    for (const [metadata, error] of [
      [{ redirect_uris: ['http://evil.example/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://app.example/cb#frag'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: [] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://*.example.com/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://app.example.com/*'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://app.example.com/%2A'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://user@app.example.com/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://user:pw@app.example.com/cb'] }, 'invalid_redirect_uri'],
      [{ grant_types: ['password'] }, 'invalid_client_metadata'],
      [{ token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
      [{ response_types: ['token'] }, 'invalid_client_metadata'],
      [{ scope: 'admin' }, 'invalid_client_metadata'],
    ] as const) {
      const r = await h.register(as, metadata);
      expect(r.status, JSON.stringify(metadata)).toBe(400);
      expect(r.body.error).toBe(error);
    }
    // An unreadable body still gets an OAuth-shaped answer.
    for (const path of ['/oauth/register', '/oauth/token', '/oauth/revoke']) {
      const bad = await fetch(`${h.server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{not json',
      });
      expect(bad.status, path).toBe(400);
      expect(await bad.json()).toMatchObject({ error: 'invalid_request' });
    }
  });
});
