import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Browser-based MCP clients: /mcp answers the origins the operator allows (CAIRN_ALLOWED_ORIGINS),
 * OAuth and discovery any origin; the console none.
 */

const ORIGIN = 'https://inspector.example';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_ALLOWED_ORIGINS: ORIGIN } });
});
afterAll(async () => {
  await server?.close();
});

describe('CORS', () => {
  it('answers preflights for /mcp and the OAuth endpoints without a credential', async () => {
    for (const [path, method] of [
      ['/mcp', 'POST'],
      ['/oauth/token', 'POST'],
      ['/oauth/register', 'POST'],
      ['/.well-known/oauth-authorization-server', 'GET'],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: ORIGIN, 'access-control-request-method': method },
      });
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(path === '/mcp' ? ORIGIN : '*');
      expect(res.headers.get('access-control-allow-methods')).toContain(method);
    }
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(mcp.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
    expect(mcp.headers.get('vary')).toContain('Origin');
  });

  it('refuses /mcp to origins not allowed, while OAuth and discovery stay open to any', async () => {
    const other = 'https://elsewhere.example';
    const preflight = await fetch(`${server.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: other, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight.json()).error.code).toBe('ORIGIN_NOT_ALLOWED');
    for (const path of ['/oauth/token', '/.well-known/oauth-authorization-server']) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: other, 'access-control-request-method': 'POST' },
      });
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
    }
  });

  it('lets a browser read MCP answers and the session id, and keeps the console same-origin', async () => {
    const agent = await createAgent(server.app.services.identity);
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        origin: ORIGIN,
        authorization: `Bearer ${agent.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'web', version: '1' },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    const unauthenticated = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { origin: ORIGIN } });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('access-control-expose-headers')).toContain('www-authenticate');
    const console = await fetch(`${server.url}/console/signin`, { headers: { origin: ORIGIN } });
    expect(console.headers.get('access-control-allow-origin')).toBeNull();
    const api = await fetch(`${server.url}/v1/oauth/connections`, { headers: { origin: ORIGIN } });
    expect(api.headers.get('access-control-allow-origin')).toBeNull();
  });
});
