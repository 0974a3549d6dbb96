import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * DNS-rebinding protection on /mcp (MCP Streamable HTTP, Security Warning): a foreign Host or
 * Origin is refused with 403 before anything else runs; the published names, the operator's
 * lists and clients that send no Origin (the SDK, CLIs) go on to authentication as before.
 */

let server: TestServer;
let open: TestServer;
let proxied: TestServer;
beforeAll(async () => {
  [server, open, proxied] = await Promise.all([
    startTestServer({
      env: {
        CAIRN_ALLOWED_HOSTS: 'cairn.internal,10.1.2.3:8443',
        CAIRN_ALLOWED_ORIGINS: 'https://app.example,HTTPS://Tools.Example:443/',
      },
    }),
    startTestServer({ env: { CAIRN_ALLOWED_ORIGINS: '*' } }),
    startTestServer({ env: { CAIRN_BASE_URL: 'https://cairn.example', CAIRN_TRUST_PROXY: 'true' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.close(), open?.close(), proxied?.close()]);
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read into the envelope
  body: any;
}

/** One request over node:http, which, unlike fetch, lets the test choose the Host header. */
function send(
  to: TestServer,
  headers: Record<string, string>,
  opts: { method?: string; body?: unknown } = {},
): Promise<Answer> {
  const { port } = to.app.http.server.address() as AddressInfo;
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: opts.method ?? 'POST',
        headers: {
          host: `127.0.0.1:${port}`,
          accept: 'application/json, text/event-stream',
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text ? JSON.parse(text) : null,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const portOf = (s: TestServer) => (s.app.http.server.address() as AddressInfo).port;

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('Host', () => {
  it('refuses a name the server is not published under, with 403 and what to configure', async () => {
    const res = await send(server, { host: `rebound.attacker.example:${portOf(server)}` });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('HOST_NOT_ALLOWED');
    expect(res.body.error.message).toContain('rebound.attacker.example');
    expect(res.body.error.details).toMatchObject({ expected_host: `127.0.0.1:${portOf(server)}` });
    expect(res.body.error.next_action).toContain('CAIRN_ALLOWED_HOSTS');
    expect(res.body.error.next_action).toContain(`${server.url}/mcp`);
    // Refused before authentication: no challenge, and no CORS for the page to read it with.
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses every method, preflights included, even with a valid credential', async () => {
    const agent = await createAgent(server.app.services.identity);
    const foreign = { host: 'rebound.attacker.example', authorization: `Bearer ${agent.key}` };
    const post = await send(server, foreign, { body: INITIALIZE });
    expect(post.status).toBe(403);
    for (const method of ['GET', 'DELETE', 'OPTIONS']) {
      const res = await send(server, { ...foreign, 'access-control-request-method': 'POST' }, { method });
      expect(res.status, method).toBe(403);
      expect(res.body.error.code, method).toBe('HOST_NOT_ALLOWED');
    }
  });

  it('answers the published host and its loopback aliases, on to authentication', async () => {
    const port = portOf(server);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'LOCALHOST']) {
      const res = await send(server, { host });
      expect(res.status, host).toBe(401);
      expect(res.body.error.code, host).toBe('UNAUTHENTICATED');
    }
    // An alias answers a real session, not just the challenge.
    const agent = await createAgent(server.app.services.identity);
    const init = await send(
      server,
      { host: `localhost:${port}`, authorization: `Bearer ${agent.key}` },
      { body: INITIALIZE },
    );
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toBeTruthy();
    // A name that merely starts like a loopback one is no alias.
    expect((await send(server, { host: `localhost.attacker.example:${port}` })).status).toBe(403);
  });

  it('answers the names in CAIRN_ALLOWED_HOSTS: a bare name on any port, host:port on that port only', async () => {
    for (const host of ['cairn.internal', 'cairn.internal:9000', 'CAIRN.INTERNAL.', '10.1.2.3:8443']) {
      expect((await send(server, { host })).status, host).toBe(401);
    }
    for (const host of ['10.1.2.3:9000', '10.1.2.3', 'other.internal', 'cairn.internal.attacker.example']) {
      expect((await send(server, { host })).status, host).toBe(403);
    }
  });

  it('behind a trusted proxy, judges the forwarded host', async () => {
    const port = portOf(proxied);
    // The proxy reaches Cairn on a loopback address and names the public host it was asked for.
    const forwarded = await send(proxied, { host: `127.0.0.1:${port}`, 'x-forwarded-host': 'cairn.example' });
    expect(forwarded.status).toBe(401);
    const rebound = await send(proxied, {
      host: `127.0.0.1:${port}`,
      'x-forwarded-host': 'rebound.attacker.example',
    });
    expect(rebound.status).toBe(403);
    expect(rebound.body.error.details.expected_host).toBe('cairn.example');
    // A proxy that passes neither Host nor X-Forwarded-Host on leaves Cairn its upstream name.
    expect((await send(proxied, { host: `127.0.0.1:${port}` })).status).toBe(403);
  });
});

describe('Origin', () => {
  it('refuses a page from a foreign origin with 403 and no CORS headers, preflight or not', async () => {
    const origin = 'https://rebound.attacker.example';
    const res = await send(server, { origin });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('ORIGIN_NOT_ALLOWED');
    expect(res.body.error.details.origin).toBe(origin);
    expect(res.body.error.next_action).toContain('CAIRN_ALLOWED_ORIGINS');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await send(
      server,
      { origin, 'access-control-request-method': 'POST' },
      { method: 'OPTIONS' },
    );
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    // Same host, other port: another origin.
    expect((await send(server, { origin: `http://127.0.0.1:${portOf(server) + 1}` })).status).toBe(403);
    expect((await send(server, { origin: 'null' })).status).toBe(403);
  });

  it("answers the base URL's own origin, its loopback aliases and the listed origins", async () => {
    const port = portOf(server);
    const allowed = [
      `http://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      'https://app.example',
      'https://tools.example',
      'https://app.example:443',
    ];
    for (const origin of allowed) {
      const res = await send(server, { origin });
      expect(res.status, origin).toBe(401);
      expect(res.headers['access-control-allow-origin'], origin).toBe(origin);
      expect(res.headers.vary, origin).toContain('Origin');
    }
    expect((await send(server, { origin: 'http://app.example' })).status).toBe(403);
  });

  it('with CAIRN_ALLOWED_ORIGINS=*, answers any origin with Access-Control-Allow-Origin: *', async () => {
    const res = await send(open, { origin: 'https://anywhere.example' });
    expect(res.status).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    // The host is still checked.
    expect(
      (await send(open, { origin: 'https://anywhere.example', host: 'rebound.attacker.example' })).status,
    ).toBe(403);
  });

  it('answers clients that send no Origin (the SDK, command-line clients) as before', async () => {
    const agent = await createAgent(server.app.services.identity);
    const res = await send(server, { authorization: `Bearer ${agent.key}` }, { body: INITIALIZE });
    expect(res.status).toBe(200);
    expect(res.body.result.protocolVersion).toBeTruthy();
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(
      (await send(server, { authorization: `Bearer ${agent.key}`, origin: 'https://x.example' })).status,
    ).toBe(403);
  });
});
