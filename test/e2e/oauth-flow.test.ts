import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.ts';
import { csrfOf, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Native OAuth end to end: the official SDK client's own flow, and oauth4webapi checking the answers. */

let server: TestServer;
let owner: Visitor;
const clock = new FakeClock(new Date('2026-11-21T09:00:00Z'));
const REDIRECT = 'http://127.0.0.1:53682/callback';

beforeAll(async () => {
  server = await startTestServer({ clock, env: { CAIRN_TRUST_PROXY: 'true' } });
  owner = new Visitor(server.url);
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, 'correct horse battery staple');
  const signedIn = await owner.signIn(email);
  expect(signedIn.status).toBe(303);
});
afterAll(async () => {
  await server?.close();
});

/** The owner's browser: follows the authorization URL to the review page and presses a button. */
async function consent(authorizationUrl: string, decision: 'allow' | 'decline'): Promise<URL> {
  const start = await owner.get(authorizationUrl.replace(server.url, ''));
  expect(start.status).toBe(302);
  const review = start.location!;
  expect(review).toMatch(/^\/console\/authorize\/orq_/);
  // The browser binding: HttpOnly, SameSite=Lax, scoped to this request's page and JSON paths.
  const id = review.split('/').at(-1);
  const cookies = start.headers.getSetCookie();
  expect(cookies).toEqual([
    expect.stringMatching(
      new RegExp(
        `^cairn_consent=[a-z2-7]+; Path=/console/authorize/${id}; Max-Age=600; HttpOnly; SameSite=Lax$`,
      ),
    ),
    expect.stringMatching(
      new RegExp(
        `^cairn_consent=[a-z2-7]+; Path=/v1/oauth/requests/${id}; Max-Age=600; HttpOnly; SameSite=Lax$`,
      ),
    ),
  ]);
  const page = await owner.get(review);
  expect(page.status).toBe(200);
  const decided = await owner.post(review, { csrf: csrfOf(page.text), decision });
  expect(decided.status).toBe(303);
  return new URL(decided.location!);
}

/** An in-memory OAuth client as an MCP host application would keep one. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Vitest MCP host',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('the official SDK client', () => {
  it('discovers, registers, gets consent, finishes auth and lists tools', async () => {
    const provider = new MemoryProvider();
    const url = new URL(`${server.url}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    const client = new Client({ name: 'vitest-oauth', version: '1.0.0' });
    await expect(client.connect(first)).rejects.toThrow(/unauthorized/i);
    expect(provider.info?.client_id).toMatch(/^cli_/);
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('resource')).toBe(`${server.url}/mcp`);

    const back = await consent(authUrl.href, 'allow');
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('iss')).toBe(server.url);
    await first.finishAuth(back.searchParams.get('code')!);
    expect(provider.saved?.access_token).toMatch(/^cd_acc_/);

    const connected = new Client({ name: 'vitest-oauth', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const names = (await connected.listTools()).tools.map((t) => t.name);
    // Consent activates public reading for the new identity, and nothing else: no campaign
    // work until it creates or joins a campaign.
    expect(names).toContain('fetch_text');
    expect(names).not.toContain('task_claim');
    expect(names).not.toContain('message_append');
    const whoami = await connected.callTool({ name: 'identity_whoami', arguments: {} });
    expect(whoami.structuredContent).toMatchObject({ mode: 'READ', display_name: 'Vitest MCP host' });
    await connected.close();
  });
});

describe('protocol checks with oauth4webapi', () => {
  const issuer = () => new URL(server.url);

  async function discover() {
    const response = await oauth.discoveryRequest(issuer(), {
      algorithm: 'oauth2',
      [oauth.allowInsecureRequests]: true,
    });
    return oauth.processDiscoveryResponse(issuer(), response);
  }

  async function register(as: oauth.AuthorizationServer, metadata: Record<string, unknown> = {}) {
    const res = await fetch(as.registration_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'oauth4webapi test',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        ...metadata,
      }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  }

  async function authorize(
    as: oauth.AuthorizationServer,
    clientId: string,
    extra: Record<string, string> = {},
  ) {
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    const params = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'st-1',
      scope: 'mcp',
      resource: `${server.url}/mcp`,
      ...extra,
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return { url, verifier };
  }

  /** The code grant for the redirect the owner's browser was sent to, checked by oauth4webapi (state, iss). */
  async function codeGrant(as: oauth.AuthorizationServer, clientId: string, back: URL, verifier: string) {
    const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' };
    const callback = oauth.validateAuthResponse(as, client, back.searchParams, 'st-1');
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      callback,
      REDIRECT,
      verifier,
      {
        [oauth.allowInsecureRequests]: true,
      },
    );
    return { res, client };
  }

  it('serves metadata that a strict client accepts, and 401s that point to it', async () => {
    const as = await discover();
    expect(as).toMatchObject({
      issuer: server.url,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      scopes_supported: ['mcp'],
    });
    expect(as.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']),
    );
    const prm = await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(prm).toEqual(
      expect.objectContaining({
        resource: `${server.url}/mcp`,
        authorization_servers: [server.url],
        scopes_supported: ['mcp'],
        bearer_methods_supported: ['header'],
      }),
    );
    // RFC 9728 §3.3: metadata must describe the resource its address was built from; the bare
    // address would be the server root's, which is not a protected resource.
    const root = await fetch(`${server.url}/.well-known/oauth-protected-resource`);
    expect(root.status).toBe(404);
    // A strict client built for /mcp accepts the path-inserted document.
    const checked = await oauth.processResourceDiscoveryResponse(
      new URL(`${server.url}/mcp`),
      await oauth.resourceDiscoveryRequest(new URL(`${server.url}/mcp`), {
        [oauth.allowInsecureRequests]: true,
      }),
    );
    expect(checked.resource).toBe(`${server.url}/mcp`);
    const unauth = await fetch(`${server.url}/mcp`, { method: 'POST' });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('www-authenticate')).toContain(
      `resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('issues tokens for a code once, refreshes within the connection, and revokes on replay', async () => {
    const as = await discover();
    const reg = await register(as);
    expect(reg.status).toBe(201);
    expect(reg.body.client_secret).toBeUndefined();
    const { url, verifier } = await authorize(as, reg.body.client_id!);
    const back = await consent(url.href, 'allow');
    const { res, client } = await codeGrant(as, reg.body.client_id!, back, verifier);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    expect(tokens.access_token).toMatch(/^cd_acc_/);

    // The same code again: refused, and what it issued is revoked.
    const again = await codeGrant(as, reg.body.client_id!, back, verifier);
    expect(again.res.status).toBe(400);
    expect(await again.res.json()).toMatchObject({ error: 'invalid_grant' });
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(mcp.status).toBe(401);
  });

  it('keeps refresh inside the 7 days and revokes the connection on a replayed refresh token', async () => {
    const as = await discover();
    const reg = await register(as);
    const { url, verifier } = await authorize(as, reg.body.client_id!);
    const back = await consent(url.href, 'allow');
    const { res, client } = await codeGrant(as, reg.body.client_id!, back, verifier);
    const first = await oauth.processAuthorizationCodeResponse(as, client, res);
    const refresh = (token: string) =>
      oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, {
        [oauth.allowInsecureRequests]: true,
      });

    clock.advance(7 * 86_400_000 - 30 * 60_000); // 30 minutes before the connection ends
    const second = await oauth.processRefreshTokenResponse(as, client, await refresh(first.refresh_token!));
    // Capped at the end of the connection, not the usual 60 minutes.
    expect(second.expires_in).toBe(1800);
    // Another client cannot use it.
    const other = await register(as);
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
    clock.advance(31 * 60_000); // past the 7 days: the token is dead and a new login is needed
    const late = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${second.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(late.status).toBe(401);
    const ended = await refresh(second.refresh_token!);
    expect(ended.status).toBe(400);
    expect(await ended.json()).toMatchObject({ error: 'invalid_grant' });
    clock.advance(-(7 * 86_400_000 + 60_000)); // back in time for the tests that follow

    // A refresh token used twice outside the retry window revokes the connection.
    const again = await register(as);
    const a = await authorize(as, again.body.client_id!);
    const b = await consent(a.url.href, 'allow');
    const g = await codeGrant(as, again.body.client_id!, b, a.verifier);
    const t1 = await oauth.processAuthorizationCodeResponse(as, g.client, g.res);
    const r1 = await oauth.refreshTokenGrantRequest(as, g.client, oauth.None(), t1.refresh_token!, {
      [oauth.allowInsecureRequests]: true,
    });
    const t2 = await oauth.processRefreshTokenResponse(as, g.client, r1);
    clock.advance(3_000);
    const replay = await oauth.refreshTokenGrantRequest(as, g.client, oauth.None(), t1.refresh_token!, {
      [oauth.allowInsecureRequests]: true,
    });
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    const afterReplay = await oauth.refreshTokenGrantRequest(as, g.client, oauth.None(), t2.refresh_token!, {
      [oauth.allowInsecureRequests]: true,
    });
    expect(await afterReplay.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses bad registrations, authorization requests and token requests', async () => {
    const as = await discover();
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
      const r = await register(as, metadata);
      expect(r.status, JSON.stringify(metadata)).toBe(400);
      expect(r.body.error).toBe(error);
    }
    // An unreadable body still gets an OAuth-shaped answer.
    for (const path of ['/oauth/register', '/oauth/token', '/oauth/revoke']) {
      const bad = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{not json',
      });
      expect(bad.status, path).toBe(400);
      expect(await bad.json()).toMatchObject({ error: 'invalid_request' });
    }
    const ok = await register(as, {
      redirect_uris: [REDIRECT, 'com.example.app:/callback', 'https://app.example/cb'],
    });
    expect(ok.status).toBe(201);
    const confidential = await register(as, { token_endpoint_auth_method: 'client_secret_basic' });
    expect(confidential.body.client_secret).toBeTruthy();

    const id = ok.body.client_id!;
    // Unknown client or unregistered return address: shown on the page, never redirected.
    const untrusted: Array<Record<string, string>> = [
      { client_id: 'cli_unknown' },
      { redirect_uri: 'http://127.0.0.1:9/other' },
    ];
    for (const extra of untrusted) {
      const { url } = await authorize(as, id, extra);
      const page = await fetch(url, { redirect: 'manual' });
      expect(page.status).toBe(400);
      expect(page.headers.get('location')).toBeNull();
    }
    {
      const { url } = await authorize(as, id);
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
      const { url } = await authorize(as, id, extra);
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(location.origin + location.pathname).toBe(REDIRECT);
      expect(location.searchParams.get('iss')).toBe(server.url);
      expect(location.searchParams.get('error'), JSON.stringify(extra)).toBe(error);
      expect(location.searchParams.get('state')).toBe('st-1');
    }
    // An https return address of a client no owner has approved gets a page with a link back, not
    // an automatic redirect: open registration must not make Cairn an open redirector.
    const web = await register(as, { redirect_uris: ['https://app.example/cb'] });
    const webUrl = (await authorize(as, web.body.client_id!, { code_challenge_method: 'plain' })).url;
    webUrl.searchParams.set('redirect_uri', 'https://app.example/cb');
    const page = await fetch(webUrl, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    const href = /<a class="button secondary" href="([^"]+)">Return to app\.example<\/a>/.exec(
      await page.text(),
    )?.[1];
    expect(new URL(href!.replace(/&(?:amp|#38);/g, '&')).searchParams.get('error')).toBe('invalid_request');
    // Decline goes back as access_denied.
    const declined = await consent((await authorize(as, id)).url.href, 'decline');
    expect(declined.searchParams.get('error')).toBe('access_denied');

    // A wrong PKCE verifier gets invalid_grant, and the code dies with it: the right verifier
    // afterwards gets nothing either (RFC 9700 §4.2.4).
    const first = await authorize(as, id);
    const burnt = await consent(first.url.href, 'allow');
    const wrong = await codeGrant(as, id, burnt, `${first.verifier.slice(0, -1)}x`);
    expect(await wrong.res.json()).toMatchObject({ error: 'invalid_grant' });
    const late = await codeGrant(as, id, burnt, first.verifier);
    expect(late.res.status).toBe(400);
    expect(await late.res.json()).toMatchObject({ error: 'invalid_grant' });
    // Two exchanges of one code at once: exactly one gets tokens.
    const { url, verifier } = await authorize(as, id);
    const back = await consent(url.href, 'allow');
    const both = await Promise.all([codeGrant(as, id, back, verifier), codeGrant(as, id, back, verifier)]);
    expect(both.map((b) => b.res.status).sort()).toEqual([200, 400]);
    const winner = both.find((b) => b.res.status === 200)!;
    expect(winner.res.headers.get('cache-control')).toBe('no-store');
    const { url: url2, verifier: verifier2 } = await authorize(as, id);
    const code2 = (await consent(url2.href, 'allow')).searchParams.get('code')!;
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
    const rightful = await redeem(as, {
      client_id: id,
      code: code2,
      redirect_uri: REDIRECT,
      code_verifier: verifier2,
    });
    expect(rightful).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  /** A raw authorization_code request for a public client. */
  async function redeem(as: oauth.AuthorizationServer, fields: Record<string, string>) {
    const res = await fetch(as.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', ...fields }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  }

  it('lets a native app vary the port of a loopback redirect, and nothing else (RFC 8252 §7.3)', async () => {
    const as = await discover();
    const reg = await register(as, {
      redirect_uris: ['http://127.0.0.1/cb', 'http://[::1]:8123/cb', 'http://localhost:8124/cb'],
    });
    expect(reg.status).toBe(201);
    const id = reg.body.client_id!;
    for (const presented of ['http://127.0.0.1:61234/cb', 'http://[::1]:61235/cb']) {
      const { url, verifier } = await authorize(as, id, { redirect_uri: presented });
      const back = await consent(url.href, 'allow');
      expect(back.origin + back.pathname).toBe(presented);
      const code = back.searchParams.get('code')!;
      // The token request names the address the code went to, port and all.
      const issued = await redeem(as, {
        client_id: id,
        code,
        redirect_uri: presented,
        code_verifier: verifier,
      });
      expect(issued.status, presented).toBe(200);
    }
    const { url, verifier } = await authorize(as, id, { redirect_uri: 'http://127.0.0.1:61236/cb' });
    const code = (await consent(url.href, 'allow')).searchParams.get('code')!;
    const registered = await redeem(as, {
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
      const page = await fetch((await authorize(as, id, { redirect_uri: presented })).url, {
        redirect: 'manual',
      });
      expect(page.status, presented).toBe(400);
      expect(page.headers.get('location')).toBeNull();
    }
  });

  it('needs redirect_uri with the code, and revokes on replay only for the holder of the verifier', async () => {
    const as = await discover();
    const id = (await register(as)).body.client_id!;
    // redirect_uri went with the authorization request, so the token request must carry it.
    const { url, verifier } = await authorize(as, id);
    const code = (await consent(url.href, 'allow')).searchParams.get('code')!;
    const bare = await redeem(as, { client_id: id, code, code_verifier: verifier });
    expect(bare).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(bare.body.error_description).toMatch(/redirect_uri/);

    const next = await authorize(as, id);
    const code2 = (await consent(next.url.href, 'allow')).searchParams.get('code')!;
    const fields = { client_id: id, code: code2, redirect_uri: REDIRECT };
    const issued = await redeem(as, { ...fields, code_verifier: next.verifier });
    expect(issued.status).toBe(200);
    const mcpWith = (token: string) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        }),
      });
    expect((await mcpWith(issued.body.access_token!)).status).toBe(200);
    // Someone holding the used code and the public client id, without the verifier: refused,
    // and the connection stays.
    const replay = await redeem(as, { ...fields, code_verifier: oauth.generateRandomCodeVerifier() });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await mcpWith(issued.body.access_token!)).status).toBe(200);
    // The same code with its verifier again: it leaked from the client itself, so the
    // connection is revoked.
    const leaked = await redeem(as, { ...fields, code_verifier: next.verifier });
    expect(leaked).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(leaked.body.error_description).toMatch(/revoked/);
    expect((await mcpWith(issued.body.access_token!)).status).toBe(401);
  });

  it('authenticates clients exactly: one method, Basic wherever advertised (RFC 6749 §2.3, RFC 7009)', async () => {
    const as = await discover();
    expect(as.token_endpoint_auth_methods_supported).toContain('client_secret_basic');
    const basic = (id: string, secret: string) =>
      `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    const token = async (fields: Record<string, string>, authorization?: string) => {
      const res = await fetch(as.token_endpoint!, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(authorization ? { authorization } : {}),
        },
        body: new URLSearchParams(fields),
      });
      return {
        status: res.status,
        challenge: res.headers.get('www-authenticate'),
        body: (await res.json()) as Record<string, string>,
      };
    };

    // A bootstrap token is the client secret of client_credentials, in the body or in Basic.
    const { owner_id } = await server.app.services.identity.addOwner(
      uniqueEmail(),
      'correct horse battery staple',
    );
    const made = () =>
      server.app.services.management.createIdentity(owner_id, {
        displayName: 'Scripted agent',
        runtime: 'cron',
        bootstrapDays: 1,
      });
    const viaBasic = await token(
      { grant_type: 'client_credentials' },
      basic('agent', (await made()).bootstrap_token!),
    );
    expect(viaBasic.status).toBe(200);
    expect(viaBasic.body.access_token).toMatch(/^cd_acc_/);
    const wrong = await token({ grant_type: 'client_credentials' }, basic('agent', 'cd_boot_wrong'));
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(wrong.challenge).toMatch(/^Basic /);
    // Two methods in one request are refused, whatever the secrets.
    const live = (await made()).bootstrap_token!;
    const both = await token({ grant_type: 'client_credentials', client_secret: live }, basic('agent', live));
    expect(both).toMatchObject({ status: 400, body: { error: 'invalid_request' } });

    // Registered clients use the code and refresh grants only.
    const pub = (await register(as)).body.client_id!;
    expect(await token({ grant_type: 'client_credentials', client_id: pub })).toMatchObject({
      status: 400,
      body: { error: 'unauthorized_client' },
    });
    const conf = (await register(as, { token_endpoint_auth_method: 'client_secret_basic' })).body;
    const own = await token(
      { grant_type: 'client_credentials' },
      basic(conf.client_id!, conf.client_secret!),
    );
    expect(own).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
    const guessed = await token(
      { grant_type: 'client_credentials' },
      basic(conf.client_id!, 'not-the-secret'),
    );
    expect(guessed).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(guessed.challenge).toMatch(/^Basic /);

    // A confidential client's connection: its tokens are revoked only by it, authenticated.
    const { url, verifier } = await authorize(as, conf.client_id!);
    const code = (await consent(url.href, 'allow')).searchParams.get('code')!;
    const issued = await token(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      basic(conf.client_id!, conf.client_secret!),
    );
    expect(issued.status).toBe(200);
    const revoke = (authorization?: string) =>
      fetch(as.revocation_endpoint!, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(authorization ? { authorization } : {}),
        },
        body: new URLSearchParams({ token: issued.body.refresh_token! }),
      });
    const anonymous = await revoke();
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'invalid_client' });
    const refreshed = await token(
      { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token! },
      basic(conf.client_id!, conf.client_secret!),
    );
    expect(refreshed.status).toBe(200);
    const authenticated = await fetch(as.revocation_endpoint!, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic(conf.client_id!, conf.client_secret!),
      },
      body: new URLSearchParams({ token: refreshed.body.refresh_token! }),
    });
    expect(authenticated.status).toBe(200);
    const after = await token(
      { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token! },
      basic(conf.client_id!, conf.client_secret!),
    );
    expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('throttles secret guessing per client id and per address, with a 429 that says when to retry', async () => {
    const as = await discover();
    const basic = (id: string, secret: string) =>
      `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    const token = async (from: string, fields: Record<string, string>, authorization?: string) => {
      const res = await fetch(as.token_endpoint!, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-forwarded-for': from,
          ...(authorization ? { authorization } : {}),
        },
        body: new URLSearchParams(fields),
      });
      return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, string> };
    };
    const conf = (await register(as, { token_endpoint_auth_method: 'client_secret_basic' })).body;
    const refresh = { grant_type: 'refresh_token', refresh_token: 'cd_ref_whatever' };
    // Ten wrong secrets for one client, from two addresses: the tenth locks the client id.
    for (let i = 0; i < 9; i++) {
      const wrong = await token(
        i % 2 ? '203.0.113.7' : '203.0.113.8',
        refresh,
        basic(conf.client_id!, `guess-${i}`),
      );
      expect(wrong.status, `guess ${i}`).toBe(401);
    }
    const locking = await token('203.0.113.7', refresh, basic(conf.client_id!, 'guess-9'));
    expect(locking.status).toBe(429);
    expect(locking.body.error).toBe('temporarily_unavailable');
    expect(Number(locking.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(locking.headers.get('cache-control')).toBe('no-store');
    // Locked even with the right secret, from anywhere, until the lock ends.
    const right = await token('198.51.100.9', refresh, basic(conf.client_id!, conf.client_secret!));
    expect(right.status).toBe(429);

    // Thirty wrong bootstrap secrets from one address lock that address.
    for (let i = 0; i < 29; i++) {
      const wrong = await token('203.0.113.50', {
        grant_type: 'client_credentials',
        client_secret: `cd_boot_${i}`,
      });
      expect(wrong.status, `bootstrap guess ${i}`).toBe(401);
    }
    const lockedOut = await token('203.0.113.50', {
      grant_type: 'client_credentials',
      client_secret: 'cd_boot_x',
    });
    expect(lockedOut.status).toBe(429);
    const { owner_id } = await server.app.services.identity.addOwner(
      uniqueEmail(),
      'correct horse battery staple',
    );
    const made = await server.app.services.management.createIdentity(owner_id, {
      displayName: 'Scripted agent',
      runtime: 'cron',
      bootstrapDays: 1,
    });
    const live = { grant_type: 'client_credentials', client_secret: made.bootstrap_token! };
    expect((await token('203.0.113.50', live)).status).toBe(429);
    expect((await token('203.0.113.51', live)).status).toBe(200);
  });

  it('revokes by RFC 7009: 200 for anything, and a refresh token ends the connection', async () => {
    const as = await discover();
    const reg = await register(as);
    const { url, verifier } = await authorize(as, reg.body.client_id!);
    const back = await consent(url.href, 'allow');
    const { res, client } = await codeGrant(as, reg.body.client_id!, back, verifier);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
    const revoke = (token: string) =>
      fetch(as.revocation_endpoint!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: reg.body.client_id! }),
      });
    expect((await revoke('cd_ref_doesnotexist')).status).toBe(200);
    expect((await revoke(tokens.refresh_token!)).status).toBe(200);
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(mcp.status).toBe(401);
    const connections = await server.app.services.oauth.connections(
      (await server.app.services.identity.findAgent(tokens.agent_id as string))!.ownerId,
    );
    expect(connections.find((c) => c.agent_id === tokens.agent_id)?.status).toBe('REVOKED');
  });

  it("leaves another client's tokens alone, and shows a connection revoked with its identity", async () => {
    const as = await discover();
    const reg = await register(as);
    const { url, verifier } = await authorize(as, reg.body.client_id!);
    const back = await consent(url.href, 'allow');
    const { res, client } = await codeGrant(as, reg.body.client_id!, back, verifier);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
    const other = await register(as);
    const attempt = await fetch(as.revocation_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: other.body.client_id! }),
    });
    expect(attempt.status).toBe(200);
    const ownerId = (await server.app.services.identity.findAgent(tokens.agent_id as string))!.ownerId;
    const status = async () =>
      (await server.app.services.oauth.connections(ownerId)).find((c) => c.agent_id === tokens.agent_id)
        ?.status;
    expect(await status()).toBe('ACTIVE');
    await server.app.services.management.revoke(ownerId, tokens.agent_id as string);
    expect(await status()).toBe('REVOKED');
  });
});
