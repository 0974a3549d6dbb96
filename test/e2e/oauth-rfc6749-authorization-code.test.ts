import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthHarness, REDIRECT, startOAuthHarness } from '../support/oauth.ts';
import { oauthCheck } from '../support/oauth-checks.ts';

/** The authorization code grant (RFC 6749 §4.1) with PKCE (RFC 7636), native-app redirects (RFC 8252) and the security BCP (RFC 9700). */

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await (h as Awaited<ReturnType<typeof startOAuthHarness>>)?.close();
});

/** A raw authorization_code request. */
const redeem = (fields: Record<string, string>) => h.token({ grant_type: 'authorization_code', ...fields });

describe(
  'authorization code with PKCE',
  oauthCheck('oauth4webapi', 'authorization code with PKCE (RFC 6749 §4.1, RFC 7636)'),
  () => {
    it('issues tokens for a code once, refreshes within the connection, and revokes on replay', async () => {
      const as = await h.discover();
      const reg = await h.register(as);
      expect(reg.status).toBe(201);
      expect(reg.body.client_secret).toBeUndefined();
      const { url, verifier } = await h.authorize(as, reg.body.client_id!);
      const back = await h.consent(url.href, 'allow');
      const { res, client } = await h.codeGrant(as, reg.body.client_id!, back, verifier);
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
      expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
      expect(tokens.access_token).toMatch(/^cd_acc_/);

      // The same code again: refused, and what it issued is revoked.
      const again = await h.codeGrant(as, reg.body.client_id!, back, verifier);
      expect(again.res.status).toBe(400);
      expect(await again.res.json()).toMatchObject({ error: 'invalid_grant' });
      const mcp = await fetch(`${h.server.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(mcp.status).toBe(401);
    });

    it('refuses bad authorization and token requests the OAuth way, and burns a code at its first attempt', async () => {
      const as = await h.discover();
      const ok = await h.register(as, {
        redirect_uris: [REDIRECT, 'com.example.app:/callback', 'https://app.example/cb'],
      });
      expect(ok.status).toBe(201);
      const confidential = await h.register(as, { token_endpoint_auth_method: 'client_secret_basic' });
      expect(confidential.body.client_secret).toBeTruthy();

      const id = ok.body.client_id!;
      // Unknown client or unregistered return address: shown on the page, never redirected.
      const untrusted: Array<Record<string, string>> = [
        { client_id: 'cli_unknown' },
        { redirect_uri: 'http://127.0.0.1:9/other' },
      ];
      for (const extra of untrusted) {
        const { url } = await h.authorize(as, id, extra);
        const page = await fetch(url, { redirect: 'manual' });
        expect(page.status).toBe(400);
        expect(page.headers.get('location')).toBeNull();
      }
      {
        const { url } = await h.authorize(as, id);
        url.searchParams.delete('redirect_uri');
        const page = await fetch(url, { redirect: 'manual' });
        expect(page.status).toBe(400);
        expect(page.headers.get('location')).toBeNull();
      }
      // Everything else goes back to the client's registered address with the error and the state.
      for (const [extra, error] of [
        [{ code_challenge_method: 'plain' }, 'invalid_request'],
        [{ response_type: 'token' }, 'unsupported_response_type'],
        [{ scope: 'mcp admin' }, 'invalid_scope'],
        [{ resource: 'https://elsewhere.example/mcp' }, 'invalid_target'],
        [{ code_challenge: 'short' }, 'invalid_request'],
      ] as const) {
        const { url } = await h.authorize(as, id, extra);
        const res = await fetch(url, { redirect: 'manual' });
        expect(res.status).toBe(302);
        const location = new URL(res.headers.get('location')!);
        expect(location.origin + location.pathname).toBe(REDIRECT);
        expect(location.searchParams.get('iss')).toBe(h.server.url);
        expect(location.searchParams.get('error'), JSON.stringify(extra)).toBe(error);
        expect(location.searchParams.get('state')).toBe('st-1');
      }
      // An https return address of a client no owner has approved gets a page with a link back, not
      // an automatic redirect: open registration must not make Cairn an open redirector.
      const web = await h.register(as, { redirect_uris: ['https://app.example/cb'] });
      const webUrl = (await h.authorize(as, web.body.client_id!, { code_challenge_method: 'plain' })).url;
      webUrl.searchParams.set('redirect_uri', 'https://app.example/cb');
      const page = await fetch(webUrl, { redirect: 'manual' });
      expect(page.status).toBe(400);
      expect(page.headers.get('location')).toBeNull();
      const href = /<a class="button secondary" href="([^"]+)">Return to app\.example<\/a>/.exec(
        await page.text(),
      )?.[1];
      expect(new URL(href!.replace(/&(?:amp|#38);/g, '&')).searchParams.get('error')).toBe('invalid_request');
      // Decline goes back as access_denied.
      const declined = await h.consent((await h.authorize(as, id)).url.href, 'decline');
      expect(declined.searchParams.get('error')).toBe('access_denied');

      // A wrong PKCE verifier gets invalid_grant, and the code dies with it: the right verifier
      // afterwards gets nothing either (RFC 9700 §4.2.4).
      const first = await h.authorize(as, id);
      const burnt = await h.consent(first.url.href, 'allow');
      const wrong = await h.codeGrant(as, id, burnt, `${first.verifier.slice(0, -1)}x`);
      expect(await wrong.res.json()).toMatchObject({ error: 'invalid_grant' });
      const late = await h.codeGrant(as, id, burnt, first.verifier);
      expect(late.res.status).toBe(400);
      expect(await late.res.json()).toMatchObject({ error: 'invalid_grant' });
      // Two exchanges of one code at once: exactly one gets tokens.
      const { url, verifier } = await h.authorize(as, id);
      const back = await h.consent(url.href, 'allow');
      const both = await Promise.all([
        h.codeGrant(as, id, back, verifier),
        h.codeGrant(as, id, back, verifier),
      ]);
      expect(both.map((b) => b.res.status).sort()).toEqual([200, 400]);
      const winner = both.find((b) => b.res.status === 200)!;
      expect(winner.res.headers.get('cache-control')).toBe('no-store');
      const { url: url2, verifier: verifier2 } = await h.authorize(as, id);
      const code2 = (await h.consent(url2.href, 'allow')).searchParams.get('code')!;
      const thief = await fetch(as.token_endpoint!, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${confidential.body.client_id}:${confidential.body.client_secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: code2,
          redirect_uri: REDIRECT,
          code_verifier: verifier2,
        }),
      });
      expect(await thief.json()).toMatchObject({ error: 'invalid_grant' });
      const noSecret = await fetch(as.token_endpoint!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: code2,
          redirect_uri: REDIRECT,
          code_verifier: verifier2,
          client_id: confidential.body.client_id!,
        }),
      });
      expect(noSecret.status).toBe(401);
      expect(await noSecret.json()).toMatchObject({ error: 'invalid_client' });
      // The confidential client's attempt spent code2: its own client gets nothing for it now.
      const rightful = await redeem({
        client_id: id,
        code: code2,
        redirect_uri: REDIRECT,
        code_verifier: verifier2,
      });
      expect(rightful).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    });

    it('lets a native app vary the port of a loopback redirect, and nothing else (RFC 8252 §7.3)', async () => {
      const as = await h.discover();
      const reg = await h.register(as, {
        redirect_uris: ['http://127.0.0.1/cb', 'http://[::1]:8123/cb', 'http://localhost:8124/cb'],
      });
      expect(reg.status).toBe(201);
      const id = reg.body.client_id!;
      for (const presented of ['http://127.0.0.1:61234/cb', 'http://[::1]:61235/cb']) {
        const { url, verifier } = await h.authorize(as, id, { redirect_uri: presented });
        const back = await h.consent(url.href, 'allow');
        expect(back.origin + back.pathname).toBe(presented);
        const code = back.searchParams.get('code')!;
        // The token request names the address the code went to, port and all.
        const issued = await redeem({
          client_id: id,
          code,
          redirect_uri: presented,
          code_verifier: verifier,
        });
        expect(issued.status, presented).toBe(200);
      }
      const { url, verifier } = await h.authorize(as, id, { redirect_uri: 'http://127.0.0.1:61236/cb' });
      const code = (await h.consent(url.href, 'allow')).searchParams.get('code')!;
      const registered = await redeem({
        client_id: id,
        code,
        redirect_uri: 'http://127.0.0.1/cb',
        code_verifier: verifier,
      });
      expect(registered).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      // Another path or query, https, or a host name (localhost) still has to match exactly.
      for (const presented of [
        'http://127.0.0.1:61237/other',
        'http://127.0.0.1:61237/cb?x=1',
        'https://127.0.0.1:61237/cb',
        'http://localhost:9999/cb',
      ]) {
        const page = await fetch((await h.authorize(as, id, { redirect_uri: presented })).url, {
          redirect: 'manual',
        });
        expect(page.status, presented).toBe(400);
        expect(page.headers.get('location')).toBeNull();
      }
    });

    it('needs redirect_uri with the code, and revokes on replay only for the holder of the verifier', async () => {
      const as = await h.discover();
      const id = (await h.register(as)).body.client_id!;
      // redirect_uri went with the authorization request, so the token request must carry it.
      const { url, verifier } = await h.authorize(as, id);
      const code = (await h.consent(url.href, 'allow')).searchParams.get('code')!;
      const bare = await redeem({ client_id: id, code, code_verifier: verifier });
      expect(bare).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      expect(bare.body.error_description).toMatch(/redirect_uri/);

      const next = await h.authorize(as, id);
      const code2 = (await h.consent(next.url.href, 'allow')).searchParams.get('code')!;
      const fields = { client_id: id, code: code2, redirect_uri: REDIRECT };
      const issued = await redeem({ ...fields, code_verifier: next.verifier });
      expect(issued.status).toBe(200);
      expect((await h.mcpStatus(issued.body.access_token!)).status).toBe(200);
      // Someone holding the used code and the public client id, without the verifier: refused,
      // and the connection stays.
      const replay = await redeem({ ...fields, code_verifier: oauth.generateRandomCodeVerifier() });
      expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect((await h.mcpStatus(issued.body.access_token!)).status).toBe(200);
      // The same code with its verifier again: it leaked from the client itself, so the
      // connection is revoked.
      const leaked = await redeem({ ...fields, code_verifier: next.verifier });
      expect(leaked).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect(leaked.body.error_description).toMatch(/revoked/);
      expect((await h.mcpStatus(issued.body.access_token!)).status).toBe(401);
    });
  },
);
