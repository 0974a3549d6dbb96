import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsFixture, startDnsFixture } from '../support/dns-fixture.ts';
import { type OAuthHarness, REDIRECT, startOAuthHarness } from '../support/oauth.ts';
import { selfSignedCertificate } from '../support/tls.ts';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document-02, MCP 2026-07-28
 * "Client Registration"): an MCP client names itself by the https URL of its metadata document
 * and authorizes with no registration call. The client's host is a real HTTPS server on
 * loopback, found through the fetcher's DNS (CAIRN_FETCH_DNS) and trusted through its CA
 * (CAIRN_FETCH_CA_FILE), the way an operator points Cairn at an internal resolver and CA.
 */

const HOST = 'client.cimd.test';
/** A name that resolves to a private address: the fetcher must refuse it before connecting. */
const INTERNAL = 'internal.cimd.test';

interface Served {
  status?: number;
  headers?: Record<string, string>;
  body: string;
}

let dns: DnsFixture;
let site: Server;
let port: number;
let caDir: string;
let h: OAuthHarness & { close(): Promise<void> };
let as: oauth.AuthorizationServer;
/** What the client's host serves, by path; every request it receives, by path. */
const served = new Map<string, Served>();
const hits: string[] = [];

const urlOf = (p: string, host = HOST) => `https://${host}:${port}${p}`;
const fetchesOf = (p: string) => hits.filter((x) => x === p).length;

/** A document for `p` as an MCP client publishes it; `extra` overrides or adds fields. */
function publish(p: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const body = JSON.stringify({
    client_id: urlOf(p),
    client_name: 'Docs Client',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
  served.set(p, { headers: { 'content-type': 'application/json', ...headers }, body });
}

/** GET /oauth/authorize as the client's browser sends it, without following the answer. */
async function authorizeAt(clientId: string, extra: Record<string, string> = {}) {
  const { url } = await h.authorize(as, clientId, extra);
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

beforeAll(async () => {
  dns = await startDnsFixture();
  dns.records.set(HOST, { A: ['127.0.0.1'] });
  dns.records.set(INTERNAL, { A: ['10.0.0.7'] });
  const { key, cert } = selfSignedCertificate(HOST);
  site = createServer({ key, cert }, (req, res) => {
    const p = req.url ?? '/';
    hits.push(p);
    const answer = served.get(p) ?? { status: 404, body: 'not here' };
    res.writeHead(answer.status ?? 200, answer.headers ?? {});
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  port = (site.address() as AddressInfo).port;
  caDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-cimd-'));
  writeFileSync(path.join(caDir, 'ca.pem'), cert);
  h = await startOAuthHarness({
    CAIRN_FETCH_DNS: dns.server,
    CAIRN_FETCH_ALLOW: `${HOST}:${port}`,
    CAIRN_FETCH_PORTS: String(port),
    CAIRN_FETCH_CA_FILE: path.join(caDir, 'ca.pem'),
  });
  as = await h.discover();
});

afterAll(async () => {
  await h?.close();
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
  await dns?.close();
  rmSync(caDir, { recursive: true, force: true });
});

describe('a client named by its metadata document', () => {
  it('is advertised in the authorization server metadata', () => {
    expect(as.client_id_metadata_document_supported).toBe(true);
    // Dynamic registration stays, for clients of earlier revisions.
    expect(as.registration_endpoint).toBe(`${h.server.url}/oauth/register`);
  });

  it('authorizes with code and PKCE and no registration call, then uses and refreshes its tokens', async () => {
    publish('/oauth/client.json');
    const clientId = urlOf('/oauth/client.json');
    const { url, verifier } = await h.authorize(as, clientId);
    const back = await h.consent(url.href, 'allow');
    const { res } = await h.codeGrant(as, clientId, back, verifier);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      { client_id: clientId, token_endpoint_auth_method: 'none' },
      res,
    );
    expect(tokens.token_type).toBe('bearer');
    expect((await h.mcpStatus(tokens.access_token)).status).toBe(200);

    // The refresh names the same client by its URL; another client's URL is refused below.
    const refreshed = await h.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    expect((await h.mcpStatus(refreshed.body.access_token!)).status).toBe(200);
    expect(fetchesOf('/oauth/client.json')).toBe(1);

    publish('/other-client.json');
    expect((await authorizeAt(urlOf('/other-client.json'))).status).toBe(302);
    const stolen = await h.token({
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token!,
      client_id: urlOf('/other-client.json'),
    });
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toBe('invalid_grant');
  });

  it('starts a device pairing by its URL, reading the document there, when it lists the device grant', async () => {
    publish('/device.json', {
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
      redirect_uris: undefined,
      response_types: [],
    });
    const started = await h.post('/oauth/device_authorization', {
      client_id: urlOf('/device.json'),
      display_name: 'Device client',
      runtime: 'cimd-test',
    });
    expect(started.status).toBe(200);
    expect(started.body.device_code).toBeTruthy();
    expect(fetchesOf('/device.json')).toBe(1);

    publish('/code-only.json');
    const refused = await h.post('/oauth/device_authorization', { client_id: urlOf('/code-only.json') });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('unauthorized_client');
  });

  it('shows the host that vouches for the name, and warns when it returns only to this computer', async () => {
    publish('/local.json');
    const local = await h.reviewPage((await h.authorize(as, urlOf('/local.json'))).url.href);
    expect(local).toContain(`described by ${HOST}:${port}`);
    expect(local).toContain('Docs Client');
    expect(local).toContain('return only to this computer (localhost)');

    publish('/web.json', { redirect_uris: ['https://app.example/callback', REDIRECT] });
    const web = await h.reviewPage((await h.authorize(as, urlOf('/web.json'))).url.href);
    expect(web).toContain(`described by ${HOST}:${port}`);
    expect(web).not.toContain('return only to this computer');
  });

  it('keeps the document as long as its Cache-Control says, then reads it again', async () => {
    publish('/cached.json', {}, { 'cache-control': 'public, max-age=300' });
    const id = urlOf('/cached.json');
    expect((await authorizeAt(id)).status).toBe(302);
    expect((await authorizeAt(id)).status).toBe(302);
    expect(fetchesOf('/cached.json')).toBe(1);
    h.clock.advance(301_000);
    expect((await authorizeAt(id)).status).toBe(302);
    expect(fetchesOf('/cached.json')).toBe(2);

    publish('/uncached.json', {}, { 'cache-control': 'no-store' });
    await authorizeAt(urlOf('/uncached.json'));
    await authorizeAt(urlOf('/uncached.json'));
    expect(fetchesOf('/uncached.json')).toBe(2);
  });

  it('checks redirect URIs against the document read again, not the old copy', async () => {
    publish('/moved.json', {}, { 'cache-control': 'max-age=60' });
    const id = urlOf('/moved.json');
    expect((await authorizeAt(id)).status).toBe(302);
    publish(
      '/moved.json',
      { redirect_uris: ['http://127.0.0.1:1/elsewhere'] },
      { 'cache-control': 'max-age=60' },
    );
    h.clock.advance(61_000);
    const refused = await authorizeAt(id);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('does not match one the application registered');
  });

  it('never keeps a failed read: the next request reads the document again', async () => {
    served.set('/flaky.json', { status: 503, body: 'busy' });
    const id = urlOf('/flaky.json');
    const failed = await authorizeAt(id);
    expect(failed.status).toBe(400);
    expect(failed.text).toContain('answered HTTP 503; it must answer 200');
    publish('/flaky.json');
    expect((await authorizeAt(id)).status).toBe(302);
    expect(fetchesOf('/flaky.json')).toBe(2);
  });

  it('refuses a document that does not name itself, asks for a secret, or is not JSON', async () => {
    const cases: Array<[string, () => void, string]> = [
      [
        '/other.json',
        () => publish('/other.json', { client_id: urlOf('/someone-else.json') }),
        'it must be exactly its own URL',
      ],
      ['/secret.json', () => publish('/secret.json', { client_secret: 'shh' }), 'must hold no secret'],
      [
        '/basic.json',
        () => publish('/basic.json', { token_endpoint_auth_method: 'client_secret_basic' }),
        'public clients only',
      ],
      ['/nameless.json', () => publish('/nameless.json', { client_name: undefined }), 'client_name'],
      ['/bad-grant.json', () => publish('/bad-grant.json', { grant_types: ['implicit'] }), 'grant_types'],
      [
        '/bad-redirect.json',
        () => publish('/bad-redirect.json', { redirect_uris: ['http://evil.example/cb'] }),
        'http is allowed only on loopback',
      ],
      ['/html.json', () => served.set('/html.json', { body: '<html>hello</html>' }), 'is not valid JSON'],
    ];
    for (const [p, serve, why] of cases) {
      serve();
      const answer = await authorizeAt(urlOf(p));
      expect(answer.status, p).toBe(400);
      expect(answer.text, p).toContain(why);
      expect(answer.text, p).toContain('Nothing was shared');
    }
  });

  it('does not follow a redirect, and refuses a document over 5 KiB', async () => {
    served.set('/hop.json', { status: 302, headers: { location: '/oauth/client.json' }, body: '' });
    const before = fetchesOf('/oauth/client.json');
    const hop = await authorizeAt(urlOf('/hop.json'));
    expect(hop.status).toBe(400);
    expect(hop.text).toContain('answered with a redirect, which is not followed');
    expect(fetchesOf('/oauth/client.json')).toBe(before);

    publish('/big.json', { padding: 'x'.repeat(6_000) });
    const big = await authorizeAt(urlOf('/big.json'));
    expect(big.status).toBe(400);
    expect(big.text).toContain('larger than 5120 bytes');
  });

  it('refuses a client_id that is not a Client Identifier URL without fetching anything', async () => {
    const before = hits.length;
    const cases: Array<[string, string]> = [
      [`http://${HOST}:${port}/oauth/client.json`, 'must be an https:// URL'],
      [`https://${HOST}:${port}`, 'must have a path'],
      [`https://${HOST}:${port}/a/../oauth/client.json`, 'must not have . or .. path segments'],
      [`https://${HOST}:${port}/a/%2E%2E/client.json`, 'must not have . or .. path segments'],
      [`https://${HOST}:${port}/oauth/client.json#x`, 'must not have a fragment'],
      [`https://me@${HOST}:${port}/oauth/client.json`, 'must not carry user information'],
    ];
    for (const [id, why] of cases) {
      const answer = await authorizeAt(id);
      expect(answer.status, id).toBe(400);
      expect(answer.text, id).toContain(why);
    }
    expect(hits.length).toBe(before);
  });

  it('never reads a document from a private address', async () => {
    const answer = await authorizeAt(urlOf('/oauth/client.json', INTERNAL));
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('non-public address');
  });

  it('is unknown at the token endpoint until it has been to /oauth/authorize', async () => {
    const answer = await h.token({
      grant_type: 'authorization_code',
      code: 'no-such-code',
      client_id: urlOf('/never-seen.json'),
      redirect_uri: REDIRECT,
      code_verifier: 'v'.repeat(43),
    });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe('invalid_client');
    expect(answer.body.error_description).toContain('/oauth/authorize');
  });
});
