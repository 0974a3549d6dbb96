import * as oauth from 'oauth4webapi';
import { expect } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.ts';
import { csrfOf, Visitor } from './console-visitor.ts';
import { mcpInitialize, uniqueEmail } from './factories.ts';
import { startTestServer, type TestServer } from './test-server.ts';

/**
 * The OAuth regression suite's shared harness (test/e2e/oauth-*.test.ts, one file per RFC
 * area): a real server with a signed-in owner, oauth4webapi for what a strict client checks,
 * and raw requests for what a strict client would never send.
 */

export const REDIRECT = 'http://127.0.0.1:53682/callback';
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** An answer body read into whatever shape the test expects. */
// biome-ignore lint/suspicious/noExplicitAny: tests read into arbitrary answer shapes
type Loose = Record<string, any>;

export type Answer = { status: number; headers: Headers; body: Record<string, string> };

export interface OAuthHarness {
  server: TestServer;
  clock: FakeClock;
  /** The authorization server's metadata, as oauth4webapi validates it. */
  discover(): Promise<oauth.AuthorizationServer>;
  /** Dynamic client registration: a public native client unless `metadata` says otherwise. */
  register(
    as: oauth.AuthorizationServer,
    metadata?: Record<string, unknown>,
  ): Promise<{ status: number; body: Record<string, string> }>;
  /** An S256 authorization request URL for the client, and its verifier. */
  authorize(
    as: oauth.AuthorizationServer,
    clientId: string,
    extra?: Record<string, string>,
  ): Promise<{ url: URL; verifier: string }>;
  /** The owner's browser follows the authorization URL, reviews it and decides; the redirect back. */
  consent(authorizationUrl: string, decision: 'allow' | 'decline' | `extend:${string}`): Promise<URL>;
  /** The owner's browser follows the authorization URL to its review page; the page's text. */
  reviewPage(authorizationUrl: string): Promise<string>;
  /** The code grant for a redirect, checked by oauth4webapi (state, iss). */
  codeGrant(
    as: oauth.AuthorizationServer,
    clientId: string,
    back: URL,
    verifier: string,
  ): Promise<{ res: Response; client: oauth.Client }>;
  /** A raw form POST to the token endpoint, from an address (X-Forwarded-For) when given. */
  token(fields: Record<string, string>, opts?: { authorization?: string; from?: string }): Promise<Answer>;
  /** A raw form POST to the revocation endpoint. */
  revoke(fields: Record<string, string>, opts?: { authorization?: string }): Promise<Answer>;
  /** A consented public client with fresh tokens (authorization code with PKCE). */
  connect(): Promise<{ clientId: string; tokens: Record<string, string> }>;
  /** An owner-created identity's bootstrap token. */
  bootstrapToken(): Promise<{ agentId: string; token: string }>;
  /** The status of an MCP initialize with this bearer: 200 when it works, 401 when it does not. */
  mcpStatus(bearer: string): Promise<{ status: number; challenge: string | null }>;
  /** A raw POST, JSON or form-encoded. */
  post(
    path: string,
    body: Record<string, unknown>,
    form?: boolean,
  ): Promise<{ status: number; headers: Headers; body: Loose }>;
  /** Another owner, by id. */
  newOwner(): Promise<string>;
  /** A runtime starts device pairing (RFC 8628 §3.1); the answer's body. */
  startPairing(extra?: Record<string, unknown>): Promise<Loose>;
  /** One device-code poll at the token endpoint. */
  poll(deviceCode: string): Promise<{ status: number; headers: Headers; body: Loose }>;
}

/** HTTP Basic client credentials (RFC 6749 §2.3.1: each part form-encoded first). */
export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** Starts the server for one test file (with extra `env`, such as the fetcher's); call `close` in afterAll. */
export async function startOAuthHarness(
  env: Record<string, string> = {},
): Promise<OAuthHarness & { close(): Promise<void> }> {
  const clock = new FakeClock(new Date('2026-11-21T09:00:00Z'));
  const server = await startTestServer({ clock, env: { CAIRN_TRUST_PROXY: 'true', ...env } });
  const owner = new Visitor(server.url);
  const ownerEmail = uniqueEmail();
  const { owner_id: ownerId } = await server.app.services.identity.addOwner(
    ownerEmail,
    'correct horse battery staple',
  );
  expect((await owner.signIn(ownerEmail)).status).toBe(303);
  const issuer = new URL(server.url);

  const form = async (url: string, fields: Record<string, string>, headers: Record<string, string>) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, string> };
  };

  const h: OAuthHarness = {
    server,
    clock,
    async post(path, body, asForm = false) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': asForm ? 'application/x-www-form-urlencoded' : 'application/json' },
        body: asForm ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body),
      });
      return { status: res.status, headers: res.headers, body: await res.json() };
    },
    async newOwner() {
      return (await server.app.services.identity.addOwner(uniqueEmail(), 'correct horse battery staple'))
        .owner_id;
    },
    async startPairing(extra = {}) {
      const res = await h.post('/oauth/device_authorization', {
        display_name: 'Claude at work',
        runtime: 'claude-code',
        ...extra,
      });
      expect(res.status).toBe(200);
      return res.body;
    },
    poll: (deviceCode) => h.post('/oauth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode }),
    async discover() {
      const response = await oauth.discoveryRequest(issuer, {
        algorithm: 'oauth2',
        [oauth.allowInsecureRequests]: true,
      });
      return oauth.processDiscoveryResponse(issuer, response);
    },
    async register(as, metadata = {}) {
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
    },
    async authorize(as, clientId, extra = {}) {
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
    },
    async consent(authorizationUrl, decision) {
      const start = await owner.get(authorizationUrl.replace(server.url, ''));
      expect(start.status).toBe(302);
      const review = start.location!;
      expect(review).toMatch(/^\/console\/authorize\/orq_/);
      // The browser binding: HttpOnly, SameSite=Lax, scoped to this request's page and JSON paths.
      const id = review.split('/').at(-1);
      expect(start.headers.getSetCookie()).toEqual([
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
    },
    async reviewPage(authorizationUrl) {
      const start = await owner.get(authorizationUrl.replace(server.url, ''));
      expect(start.status).toBe(302);
      const page = await owner.get(start.location!);
      expect(page.status).toBe(200);
      return page.text;
    },
    async codeGrant(as, clientId, back, verifier) {
      const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' };
      const callback = oauth.validateAuthResponse(as, client, back.searchParams, 'st-1');
      const res = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        callback,
        REDIRECT,
        verifier,
        { [oauth.allowInsecureRequests]: true },
      );
      return { res, client };
    },
    token: (fields, opts = {}) =>
      form(`${server.url}/oauth/token`, fields, {
        ...(opts.authorization ? { authorization: opts.authorization } : {}),
        ...(opts.from ? { 'x-forwarded-for': opts.from } : {}),
      }),
    revoke: (fields, opts = {}) =>
      form(
        `${server.url}/oauth/revoke`,
        fields,
        opts.authorization ? { authorization: opts.authorization } : {},
      ),
    async connect() {
      const as = await h.discover();
      const clientId = (await h.register(as)).body.client_id!;
      const { url, verifier } = await h.authorize(as, clientId);
      const code = (await h.consent(url.href, 'allow')).searchParams.get('code')!;
      const issued = await h.token({
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      });
      expect(issued.status).toBe(200);
      return { clientId, tokens: issued.body };
    },
    async bootstrapToken() {
      const made = await server.app.services.management.createIdentity(ownerId, {
        displayName: 'Scripted agent',
        runtime: 'cron',
        bootstrapDays: 1,
      });
      return { agentId: made.agent_id, token: made.bootstrap_token };
    },
    mcpStatus: (bearer) => mcpInitialize(server.url, bearer),
  };
  return { ...h, close: () => server.close() };
}
