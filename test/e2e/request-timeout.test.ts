import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, newMember } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 14 item 3: a request whose body trickles in, or never comes, is answered 408 and its
 * connection closed once CAIRN_REQUEST_TIMEOUT_SECONDS have passed; a long answer is not cut.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_REQUEST_TIMEOUT_SECONDS: '2' } });
});
afterAll(async () => {
  await server?.close();
});

/** Sends headers for a body of 100 bytes, then `trickle` bytes one every 400 ms; resolves with what came back. */
function slowRequest(
  path: string,
  trickle: number,
  bearer?: string,
): Promise<{ text: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    let text = '';
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < trickle && socket.writable) {
        socket.write('{');
        sent++;
      }
    }, 400);
    socket.on('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${bearer ? `Authorization: Bearer ${bearer}\r\n` : ''}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n`,
      );
    });
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`still open after 15 s; got ${JSON.stringify(text)}`));
    }, 15_000).unref();
  });
}

describe('request timeouts', () => {
  it('answers 408 REQUEST_TIMEOUT and closes a request whose body trickles in or never comes', async () => {
    const agent = await newMember(server);
    for (const [path, trickle] of [
      ['/mcp', 100],
      ['/oauth/token', 100],
      ['/mcp', 0],
    ] as const) {
      const { text, closedAfterMs } = await slowRequest(path, trickle, agent.key);
      expect(text, path).toMatch(/^HTTP\/1\.1 408 /);
      expect(text).toContain('"code":"REQUEST_TIMEOUT"');
      expect(closedAfterMs).toBeGreaterThanOrEqual(1_900);
      expect(closedAfterMs).toBeLessThan(6_000);
    }
  });

  it('closes at once a connection whose request was refused before its body arrived', async () => {
    const { text, closedAfterMs } = await slowRequest('/mcp', 100);
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(closedAfterMs).toBeLessThan(1_500);
  });

  it('does not cut an answer that takes longer than the request timeout', async () => {
    const coordinator = await newMember(server);
    const campaignId = await campaignWith(coordinator, []);
    const start = await callTool(coordinator.client, 'events_watch', {
      campaign_id: campaignId,
      wait_seconds: 1,
    });
    const held = await callTool(coordinator.client, 'events_watch', {
      campaign_id: campaignId,
      cursor: start.body.cursor,
      wait_seconds: 4,
    });
    expect(held.isError).toBe(false);
    expect(held.body.events).toEqual([]);
  });
});
