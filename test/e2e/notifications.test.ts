import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, createAgent } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const identity = () => server.app.services.identity;
const headers = (key: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  ...extra,
});

async function openSession(key: string): Promise<string> {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: headers(key),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  return res.headers.get('mcp-session-id')!;
}

describe('notifications/tools/list_changed', () => {
  it('rides in the next POST answer of an idle session, exactly once', async () => {
    const agent = await createAgent(identity());
    const sessionId = await openSession(agent.key);
    await identity().setMode(agent.agentId, 'READ');
    const list = () =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: headers(agent.key, { 'mcp-session-id': sessionId }),
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
    const first = await list();
    expect(first.headers.get('content-type')).toContain('text/event-stream');
    const events = (await first.text())
      .split('\n\n')
      .filter((e) => e.startsWith('event: message'))
      .map((e) => JSON.parse(e.slice(e.indexOf('\ndata: ') + 7)));
    expect(events[0]).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: {} });
    expect(events[1].result.tools.map((t: { name: string }) => t.name)).toContain('identity_update_about');
    const second = await list();
    expect(second.headers.get('content-type')).toContain('application/json');
  });

  it('is pushed on the open GET stream of an SDK client when the mode changes', async () => {
    const agent = await createAgent(identity());
    const client = await connectClient(server.url, agent.key);
    const heard = new Promise<string>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => resolve(n.method));
    });
    // Give the client a moment to open its standalone stream, as a real client would be idle.
    await new Promise((r) => setTimeout(r, 200));
    await identity().setMode(agent.agentId, 'READ');
    const method = await Promise.race([
      heard,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no notification within 5 s')), 5_000)),
    ]);
    expect(method).toBe('notifications/tools/list_changed');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('identity_update_about');
    await client.close();
  });

  it('reaches sessions of the changed identity only', async () => {
    const changed = await createAgent(identity());
    const other = await createAgent(identity());
    const changedSession = await openSession(changed.key);
    const otherSession = await openSession(other.key);
    await identity().setMode(changed.agentId, 'READ');
    const ping = (key: string, sessionId: string) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: headers(key, { 'mcp-session-id': sessionId }),
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
    expect((await ping(other.key, otherSession)).headers.get('content-type')).toContain('application/json');
    const mine = await ping(changed.key, changedSession);
    expect(mine.headers.get('content-type')).toContain('text/event-stream');
    expect(await mine.text()).toContain('notifications/tools/list_changed');
  });

  it('is delivered by the replica holding the stream when another replica makes the change', async () => {
    const replica = await startTestServer({ database: server.database });
    try {
      const agent = await createAgent(identity());
      const client = await connectClient(server.url, agent.key);
      const heard = new Promise<string>((resolve) => {
        client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => resolve(n.method));
      });
      await new Promise((r) => setTimeout(r, 200));
      await replica.app.services.management.setMode(
        (await identity().findAgent(agent.agentId))!.ownerId,
        agent.agentId,
        'READ',
      );
      await expect(
        Promise.race([
          heard,
          new Promise((_, no) => setTimeout(() => no(new Error('not delivered')), 5_000)),
        ]),
      ).resolves.toBe('notifications/tools/list_changed');
      await client.close();
    } finally {
      await replica.close();
    }
  });
});

describe('GET /mcp', () => {
  it('ends the stream as soon as the identity is revoked or the session is ended', async () => {
    for (const end of ['revoke', 'delete'] as const) {
      const agent = await createAgent(identity());
      const sessionId = await openSession(agent.key);
      const stream = await fetch(`${server.url}/mcp`, {
        headers: { ...headers(agent.key, { 'mcp-session-id': sessionId }), accept: 'text/event-stream' },
      });
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      await new Promise((r) => setTimeout(r, 100));
      if (end === 'revoke') await identity().revokeAgent(agent.agentId);
      else {
        const res = await fetch(`${server.url}/mcp`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${agent.key}`, 'mcp-session-id': sessionId },
        });
        expect(res.status).toBe(204);
      }
      const ended = await Promise.race([
        (async () => {
          try {
            while (!(await reader.read()).done) {}
          } catch {
            // a destroyed socket ends the read with an error: the stream is over either way
          }
          return 'ended';
        })(),
        new Promise((r) => setTimeout(() => r('still open'), 5_000)),
      ]);
      expect(ended, end).toBe('ended');
    }
  });

  it('needs text/event-stream, a session id, and an open session of the caller', async () => {
    const agent = await createAgent(identity());
    const base = { authorization: `Bearer ${agent.key}` };
    const noAccept = await fetch(`${server.url}/mcp`, { headers: base });
    expect(noAccept.status).toBe(406);
    const noSession = await fetch(`${server.url}/mcp`, { headers: { ...base, accept: 'text/event-stream' } });
    expect(noSession.status).toBe(400);
    const unknown = await fetch(`${server.url}/mcp`, {
      headers: { ...base, accept: 'text/event-stream', 'mcp-session-id': 'ses_nope' },
    });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe('SESSION_NOT_FOUND');
    const anonymous = await fetch(`${server.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(anonymous.status).toBe(401);
  });
});
