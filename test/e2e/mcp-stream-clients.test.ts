import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** SPEC Authentication 8: listed client versions get 405 on GET /mcp and their notifications in POST answers. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_MCP_NO_STREAM_CLIENTS: 'Old Host@1.2.3, legacy-ide@*' } });
});
afterAll(async () => {
  await server?.close();
});

const headers = (key: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  ...extra,
});

async function openSession(key: string, name: string, version: string): Promise<string> {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: headers(key),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version } },
    }),
  });
  return res.headers.get('mcp-session-id')!;
}

const stream = (key: string, sessionId: string) =>
  fetch(`${server.url}/mcp`, {
    headers: { ...headers(key, { 'mcp-session-id': sessionId }), accept: 'text/event-stream' },
  });

describe('GET /mcp for listed clients', () => {
  it('answers 405 to a listed name and version, and carries its notifications in POST answers', async () => {
    const agent = await createAgent(server.app.services.identity);
    const sessionId = await openSession(agent.key, 'Old Host', '1.2.3');
    const refused = await stream(agent.key, sessionId);
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('POST, DELETE');
    expect((await refused.json()).error.code).toBe('METHOD_NOT_ALLOWED');

    await server.app.services.identity.setMode(agent.agentId, 'READ');
    const answer = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: headers(agent.key, { 'mcp-session-id': sessionId }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(await answer.text()).toContain('notifications/tools/list_changed');
  });

  it('matches any version with *, and opens the stream for everyone else', async () => {
    const agent = await createAgent(server.app.services.identity);
    expect((await stream(agent.key, await openSession(agent.key, 'legacy-ide', '9.9'))).status).toBe(405);
    const other = await stream(agent.key, await openSession(agent.key, 'Old Host', '1.2.4'));
    expect(other.status).toBe(200);
    await other.body?.cancel();
  });
});
